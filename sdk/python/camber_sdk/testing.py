"""Native tests of a Python capability: a stand-in for the host's store, so a handler runs
under plain ``python -m unittest`` with the data a test chooses.

    with fake_store(points=[("AHU-1", "ahu", "supply_air_temp")]):
        out = plugin.call("equipment_count", '{"facility_id": "hq"}', context(["hq"]))
"""

from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterator

from . import store
from .errors import CapError
from .plugin import Context


@dataclass
class Point:
    equip: str
    equip_class: str
    role: str


@dataclass
class Series:
    ts: list[int]
    values: list[float]


@dataclass
class Frame:
    start: int
    step: int
    ts: list[int]
    len: int
    roles: list[str]
    values: list[list[float]]


@dataclass
class FakeStore:
    """One facility's points and series, answering as the host would for a call that may read
    only ``allowed`` (every read of another facility is ``not_allowed``)."""

    allowed: list[str]
    point_list: list[Point]
    series: dict[tuple[str, str], Series] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    catalog: list[dict[str, Any]] = field(default_factory=list)
    reports: list[tuple[int, int, str]] = field(default_factory=list)

    def _check(self, fid: str) -> None:
        if fid not in self.allowed:
            raise CapError("not_allowed", f"facility '{fid}' is not in this call's allowlist")

    def facilities(self):
        raise CapError("unavailable", "the fake store lists no facilities")

    def points(self, facility_id):
        self._check(facility_id)
        return sorted(self.point_list, key=lambda p: (p.equip, p.equip_class, p.role))

    def read_series(self, facility_id, equip, role, start_ns, end_ns):
        self._check(facility_id)
        s = self.series.get((equip, role))
        if s is None:
            raise CapError("not_found", f"no point {equip}/{role}")
        keep = [
            (t, v)
            for t, v in zip(s.ts, s.values)
            if (start_ns is None or t >= start_ns) and (end_ns is None or t <= end_ns)
        ]
        return Series([t for t, _ in keep], [v for _, v in keep])

    def read_times(self, facility_id, equips, roles, start_ns, end_ns):
        raise CapError("unavailable", "the fake store has no read_times")

    def read_frame(self, facility_id, equip, roles, start_ns, end_ns):
        cols = [self.read_series(facility_id, equip, r, start_ns, end_ns) for r in roles]
        ts = sorted({t for c in cols for t in c.ts})
        at = [dict(zip(c.ts, c.values)) for c in cols]
        return Frame(0, 0, ts, len(ts), list(roles), [[a.get(t, math.nan) for t in ts] for a in at])

    def read_grid(self, facility_id, equips, start_ns, end_ns, step_ns):
        raise CapError("unavailable", "the fake store has no read_grid")

    def run_config(self, facility_id):
        self._check(facility_id)
        return json.dumps({"config": self.config, "source": "store", "from_config": [], "banners": [], "min_trust": 0.5})

    def dataset_catalog(self):
        return json.dumps(self.catalog)

    def dataset_fields(self, keys):
        return json.dumps([{k: e[k] for k in keys if k in e} for e in self.catalog])

    def dataset_entry(self, id):
        e = next((e for e in self.catalog if e.get("id") == id), None)
        return None if e is None else json.dumps(e)

    def report(self, done, total, message):
        self.reports.append((done, total, message))


@contextlib.contextmanager
def fake_store(allowed: list[str], points: list[tuple[str, str, str]], **kw: Any) -> Iterator[FakeStore]:
    """Answer :mod:`camber_sdk.store` reads from a :class:`FakeStore` inside the block."""
    fake = FakeStore(allowed, [Point(*p) for p in points], **kw)
    saved, store._backend = store._backend, fake
    try:
        yield fake
    finally:
        store._backend = saved


def context(allowed: list[str], max_rows: int = 1000) -> Context:
    """A call context such as the host passes: the facilities the caller may read."""
    return Context(sorted(allowed), 0.5, max_rows, "test")
