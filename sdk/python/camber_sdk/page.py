"""Pages of a list. A capability cuts a list only through :func:`page`, which returns a notice
whenever the page is not the whole list; the host turns each notice into a banner and sets
``truncated``, so no list is cut silently."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence, TypeVar

#: The largest page a caller may ask for.
MAX_LIMIT = 1000
_U32 = 2**32 - 1

T = TypeVar("T")


@dataclass(frozen=True)
class PageNotice:
    """A list cut to a page: its data key, where the page starts, its size, the whole list's
    length and how the list is ordered ("worst first", or empty)."""

    list: str
    offset: int
    limit: int
    total: int
    order: str = ""


def count_arg(args: Mapping[str, Any], key: str, default: int) -> int:
    """A whole-number argument such as ``offset`` or ``limit``; ``default`` when absent or not
    a non-negative number."""
    v = args.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v < 0:
        return default
    return int(min(v, 2**63))


def page(rows: Sequence[T], list_key: str, offset: int, limit: int, order: str = "") -> tuple[list[T], PageNotice | None]:
    """``rows`` cut to ``[offset, offset + limit)`` (``limit`` clamped to 1..MAX_LIMIT), and the
    notice to return in the output's ``pages`` when the page is not the whole list."""
    rows = list(rows)
    total = len(rows)
    limit = min(max(limit, 1), MAX_LIMIT)
    if total == 0 or (offset == 0 and total <= limit):
        return rows, None
    notice = PageNotice(list_key, min(offset, _U32), limit, min(total, _U32), order)
    return rows[offset : offset + limit], notice
