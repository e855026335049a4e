"""What a component declares (its capabilities and prompts) and the glue that turns the
declaration into the contract's exports (``describe``, ``prompts``, ``get-prompt``, ``call``).
"""

from __future__ import annotations

import json
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .errors import CapError
from .page import PageNotice
from .text import one_line


@dataclass(frozen=True)
class Context:
    """What a handler knows about the caller. ``caller`` is a label for messages, never for
    policy: the host has already applied the policy."""

    allowed_facilities: list[str]
    min_trust: float
    max_rows: int
    caller: str


@dataclass
class Output:
    """A handler's answer: ``data`` (an object matching the output schema), ``text`` (a few
    sentences whose every figure cites a fact, ``[F1@name]``), ``facts`` (``{id, kind, value,
    text}`` objects), ``banners`` the user must see, and the ``pages`` notices of cut lists
    (``None`` entries, from a list that fit on one page, are ignored)."""

    data: dict[str, Any]
    text: str
    facts: list[dict[str, Any]]
    banners: list[str] = field(default_factory=list)
    pages: list[PageNotice | None] = field(default_factory=list)


Handler = Callable[[dict[str, Any], Context], Output]


@dataclass
class Capability:
    """One capability: the name callers call it by (snake_case, unique across the loaded
    components), what an assistant reads to choose it (``title``, ``description``: a
    capability without a description is refused at load), the JSON schemas the host checks
    arguments and data against, a cost class, and the handler."""

    name: str
    handler: Handler
    title: str = ""
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    output_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    version: str = "1.0.0"
    cost: str = "cheap"
    annotations: list[tuple[str, str]] = field(default_factory=list)
    #: top-level data keys that echo the caller's own text, which the host never cuts
    own_output: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PromptArg:
    """One argument of a prompt."""

    name: str
    description: str
    required: bool = False


@dataclass
class Prompt:
    """A prompt template: renders one user message from its arguments (each already one short
    line)."""

    name: str
    render: Callable[[dict[str, str]], str]
    title: str = ""
    description: str = ""
    arguments: list[PromptArg] = field(default_factory=list)


class Plugin:
    """Everything one component exports. Declare capabilities with :meth:`capability` (as a
    decorator or with a :class:`Capability`) and prompts with :meth:`prompt`, then bind the
    component's exports at module level: ``WitWorld = plugin.world()``."""

    def __init__(self) -> None:
        self.capabilities: list[Capability] = []
        self.prompts: list[Prompt] = []

    def capability(self, cap: Capability | str | None = None, **fields: Any):
        """Offer a capability: ``plugin.capability(Capability(...))``, or as a decorator,
        ``@plugin.capability("name", title=..., description=..., input_schema=...)``."""
        if isinstance(cap, Capability):
            self._add(cap)
            return cap

        def wrap(f: Handler) -> Handler:
            self._add(Capability(name=cap or f.__name__, handler=f, **fields))
            return f

        return wrap

    def prompt(self, p: Prompt | str | None = None, **fields: Any):
        """Offer a prompt: ``plugin.prompt(Prompt(...))`` or ``@plugin.prompt("name", ...)``
        on a function from the arguments (a dict) to the user message."""
        if isinstance(p, Prompt):
            self.prompts.append(p)
            return p

        def wrap(f: Callable[[dict[str, str]], str]):
            self.prompts.append(Prompt(name=p or f.__name__, render=f, **fields))
            return f

        return wrap

    def _add(self, cap: Capability) -> None:
        if any(c.name == cap.name for c in self.capabilities):
            raise ValueError(f"two capabilities named {cap.name!r}")
        self.capabilities.append(cap)

    def call(self, name: str, arguments: str, ctx: Context) -> Output:
        """Run one capability natively: what the component's ``call`` export does, without the
        contract's types (a test calls its handlers this way)."""
        cap = next((c for c in self.capabilities if c.name == name), None)
        if cap is None:
            raise CapError("unknown_capability", f"no capability named '{name}'")
        try:
            args = json.loads(arguments)
        except ValueError as e:
            raise CapError.invalid(f"arguments are not JSON: {e}") from None
        out = cap.handler(args, ctx)
        if not isinstance(out, Output):
            raise CapError.internal(f"'{name}' returned {type(out).__name__}, not an Output")
        return out

    def world(self) -> type:
        """The class componentize-py exports as the component (bind it as ``WitWorld`` in the
        app module)."""
        return _world(self)


def _internal(name: str, e: BaseException) -> CapError:
    # the traceback goes to the guest's stderr, never to the caller, who sees one line
    traceback.print_exception(e, file=sys.stderr)
    return CapError.internal(f"'{name}' raised {type(e).__name__}: {one_line(str(e))}")


try:
    # the bindings componentize-py generates from `wit/` (absent in a native test, which
    # imports the app module without them and calls `Plugin.call`)
    from componentize_py_types import Err as _Err
    from wit_world.imports import types as _types
except ImportError:
    _Err = _types = None


def _bindings():
    return _Err, _types


def _world(plugin: Plugin) -> type:
    def to_wit(e: CapError):
        Err, types = _bindings()
        return Err(types.CapError(code=types.ErrorCode[e.code.upper()], message=e.message, data=e.data_json()))

    def guarded(name: str, f: Callable[[], Any]) -> Any:
        # every failure becomes a one-line refusal, but running out of memory: the guest stops
        # and the host, which saw the cap refuse a growth, answers too_large
        try:
            return f()
        except CapError as e:
            raise to_wit(e) from None
        except MemoryError:
            raise
        except Exception as e:  # noqa: BLE001
            raise to_wit(_internal(name, e)) from None

    def dumps(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    class WitWorld:
        def describe(self):
            _, types = _bindings()
            return [
                types.Descriptor(
                    name=c.name,
                    version=c.version,
                    title=c.title or c.name,
                    description=c.description,
                    input_schema=dumps(c.input_schema),
                    output_schema=dumps(c.output_schema),
                    cost=c.cost,
                    annotations=[(str(k), str(v)) for k, v in c.annotations],
                    own_output=list(c.own_output),
                )
                for c in plugin.capabilities
            ]

        def prompts(self):
            _, types = _bindings()
            return [
                types.Prompt(
                    name=p.name,
                    title=p.title or p.name,
                    description=p.description,
                    arguments=[types.PromptArg(name=a.name, description=a.description, required=a.required) for a in p.arguments],
                )
                for p in plugin.prompts
            ]

        def get_prompt(self, name, arguments):
            p = next((p for p in plugin.prompts if p.name == name), None)
            if p is None:
                raise to_wit(CapError("unknown_capability", f"no prompt named '{name}'"))
            return guarded(name, lambda: str(p.render(dict(arguments))))

        def call(self, name, arguments, ctx):
            _, types = _bindings()
            context = Context(list(ctx.allowed_facilities), ctx.min_trust, ctx.max_rows, ctx.caller)

            def run():
                out = plugin.call(name, arguments, context)
                return types.CallResult(
                    data=dumps(out.data),
                    text=out.text,
                    facts=dumps(out.facts),
                    banners=[str(b) for b in out.banners],
                    pages=[
                        types.PageNotice(key=n.list, offset=n.offset, limit=n.limit, total=n.total, order=n.order)
                        for n in out.pages
                        if n is not None
                    ],
                )

            return guarded(name, run)

    return WitWorld
