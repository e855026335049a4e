"""The text rules every answer keeps: one line, no invisible characters, and a value from the
data written with :func:`name` so it can never pass for the capability's own words, a
citation, markup or a link. These behave exactly as the Rust SDK's (``camber_common::text``);
the host's tests run both on the same hostile strings.
"""

from __future__ import annotations

import hashlib
import re

#: A name from the data is cut to this many characters in text.
NAME_MAX_CHARS = 100

_INVISIBLE_RANGES = (
    (0x00, 0x08), (0x0B, 0x0B), (0x0E, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x34F, 0x34F),
    (0x61C, 0x61C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F),
    (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB), (0x1D173, 0x1D17A), (0xE0000, 0xE007F),
)
_INVISIBLE = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _INVISIBLE_RANGES) + "]")
_SPACE = re.compile("[\n\r\t\x0c\x85\u2028\u2029]")
# a terminal escape: a control sequence (ESC [ or CSI, parameters, intermediates, final), a
# string (ESC ] P X ^ _ up to BEL, ST or ESC \), or an escape with intermediates and a final;
# an introducer that starts no whole sequence is removed alone
_ESCAPE = re.compile(
    "(?:\x1b\\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
    "|\x1b[\\]PX^_][^\x07\x9c]*?(?:\x07|\x9c|\x1b\\\\)"
    "|\x1b[\x20-\x2f]+[\x30-\x7e]"
    "|\x1b[\x30-\x7e]"
    "|[\x1b\x9b]"
)
_FACT_ID = re.compile(r"[A-Za-z]+[0-9]+(?:@[A-Za-z0-9_-]+)?")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")


def one_line(s: str) -> str:
    """``s`` on one line: line breaks, tabs and form feeds become spaces, terminal escape
    sequences are removed whole, invisible and control characters are removed."""
    if "\x1b" in s or "\x9b" in s:
        s = _ESCAPE.sub("", s)
    return _INVISIBLE.sub("", _SPACE.sub(" ", s))


def is_fact_id(s: str) -> bool:
    """Whether ``s`` is a fact id as citations write it: letters, digits, then an optional
    ``@context`` of letters, digits, ``_`` and ``-`` (``F1``, ``F1@points``)."""
    return _FACT_ID.fullmatch(s) is not None and s.isascii()


def defuse_citations(s: str) -> str:
    """``s`` with every fact-id bracket ``[F1@x]`` written ``(F1@x)``, so it cites nothing."""
    return _BRACKET.sub(lambda m: f"({m.group(1)})" if is_fact_id(m.group(1)) else m.group(0), s)


def cut(s: str, max_chars: int) -> str | None:
    """``s`` cut to at most ``max_chars`` characters (its head, an ellipsis and six hex digits
    of a hash of the whole value), or ``None`` when it is short enough."""
    if len(s) <= max_chars:
        return None
    digest = hashlib.sha256(s.encode("utf-8", "surrogatepass")).hexdigest()[:6]
    return s[: max(max_chars - 7, 0)] + "\u2026" + digest


_WWW = re.compile(r"(?i)(www)\.")


def _defang_www(s: str) -> str:
    return _WWW.sub(lambda m: m.group(1) + "[.]", s)


def name(value: str) -> str:
    """A value from the data (an equipment id, a class, a role, a unit) as text may name it:
    one line, quoted, citations defused, markup and links defanged, inner double quotes read
    ``'``, cut at :data:`NAME_MAX_CHARS` characters."""
    s = defuse_citations(one_line(str(value)))
    s = s.replace("<", "\u2039").replace(">", "\u203a").replace("](", "] (")
    s = s.replace("://", "[:]//")
    s = _defang_www(s)
    s = s.replace('"', "'")
    c = cut(s, NAME_MAX_CHARS)
    return f'"{c if c is not None else s}"'
