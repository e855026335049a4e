"""Time an MCP server as an assistant's client meets it: the official MCP Python SDK over stdio,
one persistent session, the same calls repeated, medians.

usage: mcp_bench.py FACILITY CHEAP_ROUNDS DATA_ROUNDS -- SERVER COMMAND ...

Starts the server command, initializes, then times `ping` (the client's own round trip) and
each capability with arguments that suit it on FACILITY (a finding id and a dataset id are
taken from earlier answers). A call that reads no building data is repeated CHEAP_ROUNDS times,
one that does DATA_ROUNDS times, each after one warm-up call. Prints one JSON document:
{"ping_ms": median, "calls": {name: {"median_ms": m, "rounds": n, "client_ms": c,
"bytes": b}, or for a refusal {"median_ms": m, "rounds": n, "refused": its first line}, or
{"error": text}}, "args": {name: the arguments it was called with}}.

`client_ms` is the client's own share of a call, timed apart on its last answer: parsing the
JSON-RPC message into the SDK's result type and checking its structured content against the
tool's output schema (the SDK keeps the compiled validator, as it does for its own check).
What is left of a call past the ping and this is the server's and the pipe's.
"""

import asyncio
import json
import os
import statistics
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CHEAP = ["dataset_search", "dataset_entry", "check_citations", "rule_params", "facilities"]


async def timed(fn, rounds):
    await fn()
    took = []
    for _ in range(rounds):
        t = time.perf_counter()
        await fn()
        took.append((time.perf_counter() - t) * 1000.0)
    return statistics.median(took)


def client_share(session, name, res, rounds):
    """The client's own work on one answer, median ms: the message parsed into the SDK's result
    type, and its structured content checked against the tool's output schema."""
    from mcp import types

    raw = json.dumps({"jsonrpc": "2.0", "id": 1, "result": res.model_dump(mode="json", by_alias=True, exclude_none=True)})
    schema = getattr(session, "_tool_output_schemas", {}).get(name)
    validator = session._output_schema_validator(name, schema) if schema is not None else None

    def once():
        msg = json.loads(raw)
        parsed = types.CallToolResult.model_validate(msg["result"])
        if validator is not None:
            for _ in validator.iter_errors(parsed.structured_content):
                pass

    once()
    took = []
    for _ in range(rounds):
        t = time.perf_counter()
        once()
        took.append((time.perf_counter() - t) * 1000.0)
    return statistics.median(took), len(raw)


async def bench(session, facility, cheap_rounds, data_rounds):
    out = {"calls": {}}
    out["ping_ms"] = await timed(session.send_ping, cheap_rounds)

    async def call(name, args):
        res = await session.call_tool(name, args)
        if res.is_error:
            raise RuntimeError(res.content[0].text if res.content else "error")
        return res

    search = await call("dataset_search", {"query": "vav"})
    datasets = (search.structured_content or {}).get("datasets") or [{}]
    # a week from the facility's first sample is drift's baseline
    listed = await call("facilities", {})
    rows = (listed.structured_content or {}).get("facilities") or []
    first = next((f.get("start") or f.get("first") for f in rows if f.get("facility_id") == facility), None)
    baseline = None
    if isinstance(first, str) and len(first) >= 10:
        import datetime as dt
        d0 = dt.date.fromisoformat(first[:10])
        baseline = [str(d0), str(d0 + dt.timedelta(days=6))]
    run = await call("rule_run", {"facility_id": facility, "min_severity": "warn"})
    findings = (run.structured_content or {}).get("findings") or [{}]
    args = {
        "dataset_search": {"query": "vav"},
        "dataset_entry": {"dataset_id": datasets[0].get("id", "")},
        "check_citations": {"text": "The plant has 3 chillers [F1@x-abcdef].",
                            "facts": [{"id": "F1@x-abcdef", "text": "3 chillers"}]},
        "rule_params": {},
        "facilities": {},
        "points": {"facility_id": facility},
        "coverage": {"facility_id": facility},
        "sensor_trust": {"facility_id": facility},
        "rule_run": {"facility_id": facility},
        "finding_detail": {"facility_id": facility, "finding_id": findings[0].get("finding_id", "")},
        "drift": {"facility_id": facility, **({"baseline": baseline} if baseline else {})},
        # refused by both on a store with no M&V project: the refusal is what a client meets
        "mv_summary": {"facility_id": facility},
        "rcx_report": {"facility_id": facility},
    }
    out["args"] = args
    for name, a in args.items():
        rounds = cheap_rounds if name in CHEAP else data_rounds
        try:
            first = await session.call_tool(name, a)
        except Exception as e:  # a protocol error: reported, not fatal
            out["calls"][name] = {"error": str(e).splitlines()[0][:200]}
            continue
        if first.is_error:
            # a refusal is an answer too: timed, and marked as one
            m = await timed(lambda: session.call_tool(name, a), rounds)
            said = first.content[0].text if first.content else "error"
            out["calls"][name] = {"median_ms": m, "rounds": rounds, "refused": said.splitlines()[0][:200]}
            continue
        try:
            m = await timed(lambda: call(name, a), rounds)
            row = {"median_ms": m, "rounds": rounds}
            try:
                row["client_ms"], row["bytes"] = client_share(session, name, await call(name, a), rounds)
            except Exception as e:  # an SDK without these internals: the call's time alone
                row["client_note"] = str(e).splitlines()[0][:200]
            out["calls"][name] = row
        except Exception as e:  # a refusal: reported, not fatal
            out["calls"][name] = {"error": str(e).splitlines()[0][:200]}
    return out


async def main():
    sep = sys.argv.index("--")
    facility, cheap_rounds, data_rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    command = sys.argv[sep + 1:]
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            print(json.dumps(await bench(session, facility, cheap_rounds, data_rounds)))


if __name__ == "__main__":
    asyncio.run(main())
