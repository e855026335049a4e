"""Hold an MCP session open with the official Python SDK while components land in, change in
and leave the server's capability directory, as an operator's drop-ins would.

usage: mcp_reload_client.py stdio CAMBER CAPDIR STAGING [CAMBER ARGS...]
       mcp_reload_client.py http URL CAPDIR STAGING

STAGING holds the files the test prepared: reload_A.wasm (+ .sig), reload_B.wasm (+ .sig),
tampered.wasm (B with one byte changed after signing) and unlisted.wasm. Prints one JSON
document with what the client saw; exits non-zero on any failure.
"""

import asyncio
import json
import os
import shutil
import sys
import time

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

COMPONENT = "_cap_reload.wasm"


class Changes:
    """Counts tools/list_changed notifications as they arrive."""

    def __init__(self):
        self.count = 0
        self.event = asyncio.Event()

    async def handler(self, message):
        # a union of notification types in this SDK (a root model in older ones)
        if isinstance(getattr(message, "root", message), types.ToolListChangedNotification):
            self.count += 1
            self.event.set()

    async def wait(self, timeout=15.0):
        """Seconds until the next list_changed, or None if none came."""
        t0 = time.monotonic()
        try:
            await asyncio.wait_for(self.event.wait(), timeout)
        except asyncio.TimeoutError:
            return None
        self.event.clear()
        return time.monotonic() - t0


def land(staging, capdir, name, signed=True):
    """Put a staged file in place as a copy would: the signature first, then the component."""
    if signed and os.path.exists(os.path.join(staging, name + ".sig")):
        shutil.copy(os.path.join(staging, name + ".sig"), os.path.join(capdir, COMPONENT + ".sig"))
    shutil.copy(os.path.join(staging, name), os.path.join(capdir, COMPONENT))


async def tool_names(session):
    return sorted(t.name for t in (await session.list_tools()).tools)


async def probe(session, **args):
    r = await session.call_tool("reload_probe", args)
    if r.is_error:
        return "error: " + (r.content[0].text if r.content else "")
    return r.structured_content["variant"]


async def exercise(session, changes, capdir, staging):
    out = {}
    out["before"] = await tool_names(session)
    # a new component: the client is told, and can call it
    t0 = time.monotonic()
    land(staging, capdir, "reload_A.wasm")
    out["added_notice_s"] = await changes.wait()
    out["added_tools"] = await tool_names(session)
    out["added_probe"] = await probe(session)
    out["callable_s"] = time.monotonic() - t0
    # replaced while a call runs: that call finishes on A, the next gets B
    slow = asyncio.create_task(probe(session, sleep_ms=2500))
    await asyncio.sleep(0.5)
    land(staging, capdir, "reload_B.wasm")
    out["replaced_notice_s"] = await changes.wait()
    out["replaced_probe"] = await probe(session)
    out["in_flight_probe"] = await slow
    # a tampered copy and an unlisted one: refused, the set unharmed
    before = changes.count
    land(staging, capdir, "tampered.wasm", signed=False)
    shutil.copy(os.path.join(staging, "unlisted.wasm"), os.path.join(capdir, "_cap_unlisted.wasm"))
    await asyncio.sleep(2.0)
    out["refused_notices"] = changes.count - before
    out["refused_tools"] = await tool_names(session)
    out["refused_probe"] = await probe(session)
    os.remove(os.path.join(capdir, "_cap_unlisted.wasm"))
    # removed: its calls are refused
    os.remove(os.path.join(capdir, COMPONENT))
    out["removed_notice_s"] = await changes.wait()
    out["removed_tools"] = await tool_names(session)
    try:
        out["removed_probe"] = await probe(session)
    except Exception as e:  # the SDK raises the JSON-RPC error of an unknown tool
        out["removed_probe"] = "raised: " + str(e)
    out["notices"] = changes.count
    return out


async def run_stdio(camber, capdir, staging, extra):
    params = StdioServerParameters(
        command=camber, args=["mcp", "--capabilities", capdir, *extra], env=dict(os.environ)
    )
    changes = Changes()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=changes.handler) as session:
            init = await session.initialize()
            out = await exercise(session, changes, capdir, staging)
            out["list_changed_declared"] = bool(init.capabilities.tools and init.capabilities.tools.list_changed)
            return out


async def run_http(url, capdir, staging):
    from mcp.client.streamable_http import streamable_http_client

    changes = Changes()
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, message_handler=changes.handler) as session:
            init = await session.initialize()
            # the client opens the session's event stream after initialize: give it a moment
            await asyncio.sleep(0.5)
            out = await exercise(session, changes, capdir, staging)
            out["list_changed_declared"] = bool(init.capabilities.tools and init.capabilities.tools.list_changed)
            return out


def main():
    mode = sys.argv[1]
    if mode == "stdio":
        out = asyncio.run(run_stdio(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]))
    else:
        out = asyncio.run(run_http(sys.argv[2], sys.argv[3], sys.argv[4]))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
