"""Read-only access to the building data, through the host.

Every read is checked by the host against the call in progress: a guest reads only the
facilities the call's arguments name (for a listing, the ones the caller may see). A refused
or failed read raises :class:`~camber_sdk.CapError` with the host's code; let it propagate
and the caller gets it as the call's refusal. The host records it too, so it cannot be hidden.

Times are the site's wall clock as stored, in nanoseconds since 1970-01-01T00:00.

Outside a component (a native unit test) there is no host: install a stand-in with
:func:`camber_sdk.testing.fake_store`.
"""

from __future__ import annotations

import json
from typing import Any, Protocol, Sequence

from .errors import CapError

try:
    # the bindings componentize-py generates from `wit/`; imported here, at module import, so
    # the component it builds imports every interface the SDK may call
    from componentize_py_types import Err as _Err
    from wit_world.imports import catalog as _catalog
    from wit_world.imports import progress as _progress
    from wit_world.imports import run_config as _run_config
    from wit_world.imports import store as _store
except ImportError:  # a native test: no host (see camber_sdk.testing)
    _Err = None


class Backend(Protocol):
    """What answers the reads: the host's imports in a component, a fake in a native test."""

    def facilities(self) -> Any: ...
    def points(self, facility_id: str) -> list[Any]: ...
    def read_series(self, facility_id: str, equip: str, role: str, start_ns: int | None, end_ns: int | None) -> Any: ...
    def read_times(self, facility_id: str, equips: list[str], roles: list[str], start_ns: int | None, end_ns: int | None) -> list[Any]: ...
    def read_frame(self, facility_id: str, equip: str, roles: list[str], start_ns: int | None, end_ns: int | None) -> Any: ...
    def read_grid(self, facility_id: str, equips: list[str], start_ns: int | None, end_ns: int | None, step_ns: int) -> list[Any]: ...
    def run_config(self, facility_id: str) -> str: ...
    def dataset_catalog(self) -> str: ...
    def dataset_fields(self, keys: list[str]) -> str: ...
    def dataset_entry(self, id: str) -> str | None: ...
    def report(self, done: int, total: int, message: str) -> None: ...


class _Host:
    """The host's imports (the bindings componentize-py generates from ``wit/``)."""

    def __init__(self) -> None:
        self._err, self._store, self._config = _Err, _store, _run_config
        self._catalog, self._progress = _catalog, _progress

    def _host(self, f, *args):
        try:
            return f(*args)
        except self._err as e:
            err = e.value
            raise CapError(err.code.name.lower(), err.message) from None

    def facilities(self):
        return self._host(self._store.facilities)

    def points(self, facility_id):
        return self._host(self._store.points, facility_id)

    def read_series(self, facility_id, equip, role, start_ns, end_ns):
        return self._host(self._store.read_series, facility_id, equip, role, start_ns, end_ns)

    def read_times(self, facility_id, equips, roles, start_ns, end_ns):
        return self._host(self._store.read_times, facility_id, equips, roles, start_ns, end_ns)

    def read_frame(self, facility_id, equip, roles, start_ns, end_ns):
        return self._host(self._store.read_frame, facility_id, equip, roles, start_ns, end_ns)

    def read_grid(self, facility_id, equips, start_ns, end_ns, step_ns):
        return self._host(self._store.read_grid, facility_id, equips, start_ns, end_ns, step_ns)

    def run_config(self, facility_id):
        return self._host(self._config.run_config, facility_id)

    def dataset_catalog(self):
        return self._catalog.dataset_catalog()

    def dataset_fields(self, keys):
        return self._catalog.dataset_fields(keys)

    def dataset_entry(self, id):
        return self._catalog.dataset_entry(id)

    def report(self, done, total, message):
        self._progress.report(done, total, message)


_backend: Backend | None = None


def _b() -> Backend:
    global _backend
    if _backend is None:
        if _Err is None:
            raise CapError(
                "unavailable",
                "no host to read from: outside a component, install a stand-in with camber_sdk.testing.fake_store",
            )
        _backend = _Host()
    return _backend


def facilities() -> Any:
    """The facilities this call may list (``facilities``, ``withheld_research_only``,
    ``withheld_unverified``), sorted by id."""
    return _b().facilities()


def points(facility_id: str) -> list[Any]:
    """The stored points of one facility (``equip``, ``equip_class``, ``role``), sorted by
    equipment, class and role."""
    return _b().points(facility_id)


def read_series(facility_id: str, equip: str, role: str, start_ns: int | None = None, end_ns: int | None = None) -> Any:
    """One point's samples in ``[start_ns, end_ns]``: ``ts`` and ``values``."""
    return _b().read_series(facility_id, equip, role, start_ns, end_ns)


def read_times(
    facility_id: str,
    equips: Sequence[str] = (),
    roles: Sequence[str] = (),
    start_ns: int | None = None,
    end_ns: int | None = None,
) -> list[Any]:
    """Every point's sample times as runs of evenly spaced samples (``start``, ``step``,
    ``count``), in one pass; empty ``equips`` or ``roles`` mean all."""
    return _b().read_times(facility_id, list(equips), list(roles), start_ns, end_ns)


def read_frame(
    facility_id: str, equip: str, roles: Sequence[str], start_ns: int | None = None, end_ns: int | None = None
) -> Any:
    """One equipment's roles as aligned columns (NaN where a role has no sample); see
    :func:`frame_times` for its timestamps."""
    return _b().read_frame(facility_id, equip, list(roles), start_ns, end_ns)


def read_grid(
    facility_id: str,
    step_ns: int,
    equips: Sequence[str] = (),
    start_ns: int | None = None,
    end_ns: int | None = None,
) -> list[Any]:
    """Equipment frames on a time grid of ``step_ns`` in one pass: each equipment (``equip``,
    ``equip_class``, ``frame``) with every role it stores, each value its slot's mean."""
    return _b().read_grid(facility_id, list(equips), start_ns, end_ns, step_ns)


def frame_times(frame: Any) -> list[int]:
    """A frame's timestamps, whether it lists them or gives ``start`` and ``step``."""
    if frame.ts:
        return list(frame.ts)
    return [frame.start + i * frame.step for i in range(frame.len)]


def run_config(facility_id: str) -> dict[str, Any]:
    """The run config a run of this facility uses, as the host loaded and checked it:
    ``config``, ``source``, ``from_config``, ``banners``, ``min_trust``."""
    return json.loads(_b().run_config(facility_id))


def catalog() -> list[dict[str, Any]]:
    """The dataset catalog (public metadata, no building data), sorted by id."""
    return json.loads(_b().dataset_catalog())


def catalog_fields(keys: Sequence[str]) -> list[dict[str, Any]]:
    """The catalog with only these top-level keys of each entry, in the same order."""
    return json.loads(_b().dataset_fields(list(keys)))


def catalog_entry(id: str) -> dict[str, Any] | None:
    """The catalog entry with this id, or ``None``."""
    text = _b().dataset_entry(id)
    return None if text is None else json.loads(text)


def progress(done: int, total: int, message: str) -> None:
    """Tell the host how far the call's work has gone: ``done`` of ``total`` units finished,
    ``message`` naming the one just finished. Never fails; without a host it does nothing."""
    clamp = lambda n: max(0, min(int(n), 2**32 - 1))  # noqa: E731
    try:
        b = _b()
    except CapError:
        return
    b.report(clamp(done), clamp(total), str(message))
