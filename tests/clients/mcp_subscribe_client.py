"""Watch a resource over HTTP with the official Python SDK, as an assistant that keeps a
facility's point list open would: subscribe, hear of an ingest that rewrites the facility on
the session's event stream, unsubscribe, and hear nothing of the next one.

usage: mcp_subscribe_client.py URL TOKEN URI HIDDEN_URI -- REWRITE COMMAND...

HIDDEN_URI is a resource of a facility the token may not see. REWRITE COMMAND is run (twice)
to rewrite URI's facility. Prints one JSON document with what the client saw; exits non-zero
on any failure.
"""

import asyncio
import json
import subprocess
import sys
import time

import mcp.types as types
from mcp import ClientSession
from mcp.shared.exceptions import MCPError


class Updates:
    """The URIs of the resources/updated notifications, as they arrive."""

    def __init__(self):
        self.uris = []
        self.event = asyncio.Event()

    async def handler(self, message):
        message = getattr(message, "root", message)
        if isinstance(message, types.ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))
            self.event.set()

    async def wait(self, timeout):
        """Seconds until the next notification, or None if none came in `timeout`."""
        t0 = time.monotonic()
        try:
            await asyncio.wait_for(self.event.wait(), timeout)
        except asyncio.TimeoutError:
            return None
        self.event.clear()
        return time.monotonic() - t0


async def rewrite(command):
    proc = await asyncio.create_subprocess_exec(*command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError("the rewrite failed: " + err.decode(errors="replace"))


async def exercise(session, updates, uri, hidden, command):
    out = {}
    init = await session.initialize()
    out["subscribe_declared"] = bool(init.capabilities.resources and init.capabilities.resources.subscribe)
    # the client opens the session's event stream after initialize: give it a moment
    await asyncio.sleep(0.5)
    await session.subscribe_resource(uri)
    try:
        await session.subscribe_resource(hidden)
        out["hidden"] = "subscribed"
    except MCPError as e:
        out["hidden"] = {"code": e.error.code, "message": e.error.message}
    out["before_rewrite"] = await updates.wait(1.5)
    await rewrite(command)
    out["notice_s"] = await updates.wait(60)
    out["uris"] = list(updates.uris)
    await session.unsubscribe_resource(uri)
    # a look the server had begun before the unsubscribe may still end in a notice
    await updates.wait(1.5)
    seen = len(updates.uris)
    await rewrite(command)
    await updates.wait(4)
    out["after_unsubscribe"] = len(updates.uris) - seen
    return out


async def run(url, token, uri, hidden, command):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    updates = Updates()
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write, message_handler=updates.handler) as session:
                return await exercise(session, updates, uri, hidden, command)


def main():
    url, token, uri, hidden = sys.argv[1:5]
    if sys.argv[5] != "--":
        sys.exit(__doc__)
    json.dump(asyncio.run(run(url, token, uri, hidden, sys.argv[6:])), sys.stdout)


if __name__ == "__main__":
    main()
