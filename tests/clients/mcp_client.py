"""Drive `camber mcp` with the official MCP Python SDK, as an assistant's client would.

usage: mcp_client.py stdio CAMBER STORE FACILITY
       mcp_client.py http URL TOKEN FACILITY

Lists the tools and calls each with arguments that suit it, validating every structured
result against the tool's output schema; lists the prompts and gets each. Prints one JSON
document with what it saw; exits non-zero on any failure.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from cases import call_every_tool, prompt_arguments


async def exercise(session, facility):
    out = {"tools": {}, "prompts": {}, "errors": []}
    init = session.initialize_result
    out["protocol"] = init.protocol_version if init else None
    tools = (await session.list_tools()).tools
    equip = await call_every_tool(session.call_tool, tools, facility, out)
    prompts = (await session.list_prompts()).prompts
    for p in prompts:
        args = prompt_arguments(p, facility, equip)
        got = await session.get_prompt(p.name, args)
        out["prompts"][p.name] = got.messages[0].content.text[:200]
    return out


async def run_stdio(camber, store, facility):
    params = StdioServerParameters(command=camber, args=["mcp", "--store", store, "--allow-all-active"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await exercise(session, facility)


async def run_http(url, token, facility):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token != "-" else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await exercise(session, facility)


def main():
    mode = sys.argv[1]
    if mode == "stdio":
        out = asyncio.run(run_stdio(sys.argv[2], sys.argv[3], sys.argv[4]))
    else:
        out = asyncio.run(run_http(sys.argv[2], sys.argv[3], sys.argv[4]))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
