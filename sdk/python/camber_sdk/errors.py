"""Refusals: a code that names what is wrong and a one-line message.

The codes are the registry's (the WIT ``error-code`` enum, written in snake_case). A handler
raises :class:`CapError`; the SDK turns it into the contract's ``cap-error``.
"""

from __future__ import annotations

import json
from typing import Any

#: Every code a refusal may carry, as the host and its callers spell them.
CODES = (
    "invalid_params",
    "unknown_capability",
    "not_found",
    "not_allowed",
    "refused_licence",
    "too_large",
    "timeout",
    "unavailable",
    "internal",
)


class CapError(Exception):
    """A refusal: ``code`` (one of :data:`CODES`), a one-line ``message`` and optional JSON
    ``data`` (an object with structured detail)."""

    def __init__(self, code: str, message: str, data: dict[str, Any] | None = None):
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}; one of {', '.join(CODES)}")
        from .text import one_line

        self.code = code
        self.message = one_line(str(message))
        self.data = data
        super().__init__(f"{code}: {self.message}")

    @classmethod
    def invalid(cls, message: str) -> "CapError":
        """The arguments cannot be served as given (``invalid_params``)."""
        return cls("invalid_params", message)

    @classmethod
    def not_found(cls, message: str, data: dict[str, Any] | None = None) -> "CapError":
        """Something the arguments name does not exist (``not_found``)."""
        return cls("not_found", message, data)

    @classmethod
    def internal(cls, message: str) -> "CapError":
        """A defect of the capability itself (``internal``)."""
        return cls("internal", message)

    def data_json(self) -> str | None:
        """``data`` as JSON text, as the contract carries it."""
        return None if self.data is None else json.dumps(self.data, ensure_ascii=False, allow_nan=False)
