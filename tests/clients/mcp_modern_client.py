"""Drive `camber mcp` with the official MCP Python SDK pinned to protocol revision 2026-07-28.

usage: mcp_modern_client.py stdio CAMBER STORE FACILITY
       mcp_modern_client.py http URL TOKEN FACILITY

The stateless revision: no `initialize`, every request carries its own `_meta` envelope
(and, over HTTP, `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers). The SDK
`Client` is pinned with `mode="2026-07-28"`, so it never falls back to the handshake.
It sends `server/discover`, lists the tools and calls each with arguments that suit it
(validating every structured result against the tool's output schema), lists the
prompts and gets each. Every result is checked against the SDK's 2026-07-28 wire
schema (the SDK does that itself before parsing). A raw check without the SDK then
sends a request claiming protocol version 1999-01-01 and records the error.

Prints one JSON document with what it saw; exits non-zero on any failure.
"""

import asyncio
import json
import subprocess
import sys

import mcp_types
from mcp import Client, StdioServerParameters
from mcp_types import methods as wire_methods

from cases import call_every_tool, prompt_arguments

VERSION = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"


class WireLog:
    """Records every raw result the SDK's dispatcher hands back, before the SDK parses it."""

    def __init__(self):
        self.results = []  # (method, raw result dict)

    def install(self, session):
        dispatcher = session._dispatcher  # the raw JSON-RPC layer under ClientSession
        inner = dispatcher.send_raw_request

        async def recording(method, params, opts=None):
            raw = await inner(method, params, opts)
            self.results.append((method, json.loads(json.dumps(raw))))
            return raw

        dispatcher.send_raw_request = recording

    def last(self, method):
        for m, raw in reversed(self.results):
            if m == method:
                return raw
        raise AssertionError(f"no raw result recorded for {method}")


def cache_hints(raw):
    return {"ttlMs": raw.get("ttlMs"), "cacheScope": raw.get("cacheScope")}


async def exercise(client, wire, facility):
    session = client.session
    out = {"tools": {}, "prompts": {}, "errors": [], "lists": {}}

    # server/discover, sent at the pinned version; the raw result is checked against the
    # 2026-07-28 wire schema (resultType, ttlMs, cacheScope, supportedVersions, capabilities
    # are all required there) and then adopted so capabilities/serverInfo come from it.
    raw = await session.send_discover(VERSION)
    wire_methods.validate_server_result("server/discover", VERSION, raw)
    discover = mcp_types.DiscoverResult.model_validate(raw)
    session.adopt(discover)
    out["protocol"] = client.protocol_version
    out["initialize_sent"] = session.initialize_result is not None
    out["discover"] = {
        "supportedVersions": raw.get("supportedVersions"),
        "resultType": raw.get("resultType"),
        **cache_hints(raw),
        "capabilities": sorted((raw.get("capabilities") or {}).keys()),
        "has_instructions": isinstance(raw.get("instructions"), str),
        "meta_keys": sorted((raw.get("_meta") or {}).keys()),
    }
    out["server_name"] = client.server_info.name if client.server_info else None

    tools = (await client.list_tools(cache_mode="bypass")).tools
    out["lists"]["tools/list"] = cache_hints(wire.last("tools/list"))
    equip = await call_every_tool(client.call_tool, tools, facility, out)

    prompts = (await client.list_prompts(cache_mode="bypass")).prompts
    out["lists"]["prompts/list"] = cache_hints(wire.last("prompts/list"))
    for p in prompts:
        args = prompt_arguments(p, facility, equip)
        got = await client.get_prompt(p.name, args)
        out["prompts"][p.name] = got.messages[0].content.text[:200]

    # what the wire carried on every result
    seen = {}
    for method, raw_result in wire.results:
        seen.setdefault(method, set()).add(raw_result.get("resultType"))
    out["result_types"] = {method: sorted(values, key=str) for method, values in seen.items()}
    out["server_info_on_every_result"] = all(META_SERVER_INFO in (r.get("_meta") or {}) for _, r in wire.results)
    missing = [m for m, r in wire.results if r.get("resultType") is None]
    if missing:
        out["errors"].append(f"results without resultType: {sorted(set(missing))}")
    return out


def envelope(version):
    return {
        META_VERSION: version,
        META_CAPS: {},
        META_INFO: {"name": "camber-raw-check", "version": "0"},
    }


def raw_request(version):
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope(version)}}


def error_of(msg):
    err = msg.get("error") or {}
    return {"code": err.get("code"), "message": err.get("message"), "data": err.get("data"), "id": msg.get("id")}


def raw_check_stdio(camber, store):
    """No SDK: one newline-delimited JSON-RPC request on a fresh server process."""
    proc = subprocess.Popen(
        [camber, "mcp", "--store", store, "--allow-all-active"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        proc.stdin.write(json.dumps(raw_request("1999-01-01")) + "\n")
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise AssertionError("server closed stdout without answering the raw request")
            msg = json.loads(line)
            if msg.get("id") == 1:
                return {"unsupported_version": error_of(msg)}
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _http_json(resp):
    ctype = resp.headers.get("content-type", "")
    if ctype.startswith("text/event-stream"):
        for line in resp.text.splitlines():
            if line.startswith("data:"):
                msg = json.loads(line[5:])
                if "id" in msg:
                    return msg
        return {}
    return resp.json() if resp.content else {}


def raw_check_http(url, token):
    """No SDK: plain POSTs with the 2026 headers."""
    import httpx2

    base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if token != "-":
        base["Authorization"] = f"Bearer {token}"
    out = {}
    with httpx2.Client(timeout=60) as http:
        # header and body agree on an unsupported version: -32022, HTTP 400
        r = http.post(url, headers={**base, "MCP-Protocol-Version": "1999-01-01", "Mcp-Method": "tools/list"}, content=json.dumps(raw_request("1999-01-01")))
        out["unsupported_version"] = {"status": r.status_code, **error_of(_http_json(r))}
        # Mcp-Name disagrees with params.name: -32020, HTTP 400
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"_meta": envelope(VERSION), "name": "facilities", "arguments": {}}}
        r = http.post(url, headers={**base, "MCP-Protocol-Version": VERSION, "Mcp-Method": "tools/call", "Mcp-Name": "not-facilities"}, content=json.dumps(body))
        out["header_mismatch"] = {"status": r.status_code, **error_of(_http_json(r))}
        # the stateless revision never hands out a session
        body = {"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {"_meta": envelope(VERSION)}}
        r = http.post(url, headers={**base, "MCP-Protocol-Version": VERSION, "Mcp-Method": "server/discover"}, content=json.dumps(body))
        out["discover"] = {"status": r.status_code, "content_type": r.headers.get("content-type"), "session_id": r.headers.get("mcp-session-id")}
    return out


async def run_stdio(camber, store, facility):
    params = StdioServerParameters(command=camber, args=["mcp", "--store", store, "--allow-all-active"])
    async with Client(params, mode=VERSION, cache=None) as client:
        wire = WireLog()
        wire.install(client.session)
        return await exercise(client, wire, facility)


async def run_http(url, token, facility):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token != "-" else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=VERSION, cache=None) as client:
            wire = WireLog()
            wire.install(client.session)
            return await exercise(client, wire, facility)


def main():
    mode = sys.argv[1]
    if mode == "stdio":
        out = asyncio.run(run_stdio(sys.argv[2], sys.argv[3], sys.argv[4]))
        out["raw"] = raw_check_stdio(sys.argv[2], sys.argv[3])
    else:
        out = asyncio.run(run_http(sys.argv[2], sys.argv[3], sys.argv[4]))
        out["raw"] = raw_check_http(sys.argv[2], sys.argv[3])
    json.dump(out, sys.stdout)
    if out["errors"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
