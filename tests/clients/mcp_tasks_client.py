"""Drive `camber mcp`'s 2025-11-25 tasks utility with the official MCP Python SDK (mcp==2.3.0).

usage: mcp_tasks_client.py stdio CAMBER STORE FACILITY
       mcp_tasks_client.py http URL TOKEN FACILITY        (TOKEN "-" sends no Authorization header)

Normal `initialize` handshake at 2025-11-25, then: checks `capabilities.tasks`; lists the
tools and records each tool's `execution.taskSupport`; calls `rule_run` {"facility_id": FACILITY}
as a task (`params.task = {"ttl": ...}`); polls `tasks/get` until the task is terminal,
recording the statuses seen; fetches `tasks/result` and validates its `structuredContent`
against rule_run's `outputSchema`; lists tasks (following `nextCursor`); calls `tasks/cancel`
on the finished task and records the error; calls `tasks/get` with an unknown id and records
the error. Every raw result is also validated against the SDK's generated 2025-11-25 wire
schema models (`mcp_types._v2025_11_25`). Prints one JSON document; exits 1 on any failure.

Why raw requests: mcp 2.3.0 defines the task types but does not implement tasks in its
client (there is no `session.experimental`, and `call_tool` has no `task` argument). Worse,
`ClientSession.send_request` validates any `tools/call` result as a `CallToolResult`, so a
correct `CreateTaskResult` ({"task": {...}}) fails there. The task-augmented `tools/call` and
the `tasks/*` requests therefore go through the session's own stamp + dispatcher, i.e. the
same framing/headers/session id the SDK uses for every other request, minus result
validation, which this script then does itself against the spec's wire models.
"""

import asyncio
import datetime
import json
import os
import sys
import time
import uuid

import jsonschema
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.extension import NotificationBinding
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import _v2025_11_25 as wire

RELATED = "io.modelcontextprotocol/related-task"
TERMINAL = ("completed", "failed", "cancelled")
STATUSES = ("working", "input_required") + TERMINAL
TTL_MS = 60_000
POLL_TIMEOUT_S = float(os.environ.get("MCP_TASKS_POLL_TIMEOUT", "300"))


class Failed(Exception):
    pass


async def raw_request(session, method, params):
    """Send `method` exactly as ClientSession.send_request would, but return the raw result dict."""
    data = {"method": method, "params": params}
    opts = {}
    session._stamp(data, opts)  # MCP-Protocol-Version header on HTTP (handshake era)
    return await session._dispatcher.send_raw_request(method, data.get("params"), opts)


def err_of(e):
    return {"code": e.code, "message": e.message, "data": e.data}


def check_time(label, value, fails):
    try:
        datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        fails.append(f"{label}: not an ISO 8601 timestamp: {value!r}")


def check_task(label, task, task_id, fails):
    """`task` is a raw wire Task object (already schema-validated)."""
    if task_id is not None and task.get("taskId") != task_id:
        fails.append(f"{label}: taskId {task.get('taskId')!r} != {task_id!r}")
    if task.get("status") not in STATUSES:
        fails.append(f"{label}: bad status {task.get('status')!r}")
    check_time(f"{label}.createdAt", task.get("createdAt"), fails)
    check_time(f"{label}.lastUpdatedAt", task.get("lastUpdatedAt"), fails)
    if "ttl" not in task:
        fails.append(f"{label}: ttl missing (required; null means unlimited)")


def validated(label, model, raw, fails):
    try:
        model.model_validate(raw, by_name=False)
        return True
    except Exception as e:  # pydantic.ValidationError
        fails.append(f"{label}: does not match 2025-11-25 {model.__name__}: {str(e)[:400]}")
        return False


async def exercise(session, facility, seen_notifications, out):
    fails, warns = out["failures"], out["warnings"]
    init = session.initialize_result
    out["protocol"] = init.protocol_version if init else None
    if out["protocol"] != "2025-11-25":
        fails.append(f"negotiated {out['protocol']!r}, tasks need 2025-11-25")

    # 1. capability
    caps = session.server_capabilities
    tasks_cap = caps.tasks if caps else None
    out["capabilities_tasks"] = tasks_cap.model_dump(by_alias=True, exclude_none=True) if tasks_cap else None
    can_call = bool(tasks_cap and tasks_cap.requests and tasks_cap.requests.tools and tasks_cap.requests.tools.call is not None)
    can_list = bool(tasks_cap and tasks_cap.list is not None)
    can_cancel = bool(tasks_cap and tasks_cap.cancel is not None)
    if not can_call:
        raise Failed("server does not declare capabilities.tasks.requests.tools.call")

    # 2. tools and execution.taskSupport
    tools, cursor = [], None
    while True:
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    out["task_support"] = {t.name: (t.execution.task_support if t.execution else None) for t in tools}
    rule_run = next((t for t in tools if t.name == "rule_run"), None)
    if rule_run is None:
        raise Failed("no rule_run tool")
    if out["task_support"]["rule_run"] not in ("optional", "required"):
        raise Failed(f"rule_run taskSupport is {out['task_support']['rule_run']!r}: it may not be called as a task")

    # 3. task-augmented tools/call -> CreateTaskResult
    t0 = time.monotonic()
    created = await raw_request(
        session, "tools/call", {"name": "rule_run", "arguments": {"facility_id": facility}, "task": {"ttl": TTL_MS}}
    )
    out["create_ms"] = round((time.monotonic() - t0) * 1000)
    out["create"] = created
    if not validated("tools/call(task)", wire.CreateTaskResult, created, fails):
        raise Failed("tools/call with params.task did not return a CreateTaskResult")
    task = created["task"]
    task_id = task["taskId"]
    check_task("create.task", task, None, fails)
    if task["status"] != "working":
        warns.append(f"task created in status {task['status']!r} (spec: tasks MUST begin in working)")
    if not isinstance(task_id, str) or not task_id:
        fails.append("taskId must be a non-empty string")

    # 4. poll tasks/get until terminal
    statuses = [task["status"]]
    polls = 0
    deadline = time.monotonic() + POLL_TIMEOUT_S
    current = task
    while current["status"] not in TERMINAL:
        if time.monotonic() > deadline:
            raise Failed(f"task still {current['status']!r} after {POLL_TIMEOUT_S}s")
        interval = current.get("pollInterval") or 500
        await asyncio.sleep(min(max(interval, 50), 2000) / 1000)
        got = await raw_request(session, "tasks/get", {"taskId": task_id})
        polls += 1
        if not validated("tasks/get", wire.GetTaskResult, got, fails):
            raise Failed("tasks/get result is not a flat Task")
        check_task("tasks/get", got, task_id, fails)
        if RELATED in (got.get("_meta") or {}):
            warns.append("tasks/get result carries related-task _meta (spec: SHOULD NOT)")
        if statuses[-1] in TERMINAL and got["status"] != statuses[-1]:
            fails.append(f"left terminal status {statuses[-1]!r} for {got['status']!r}")
        if got["status"] != statuses[-1]:
            statuses.append(got["status"])
        current = got
    out["statuses"] = statuses
    out["polls"] = polls
    out["final"] = current

    # 5. tasks/result -> the original CallToolResult, with related-task _meta
    payload = await raw_request(session, "tasks/result", {"taskId": task_id})
    entry = {"keys": sorted(payload.keys()), "is_error": payload.get("isError"), "meta": payload.get("_meta")}
    out["result"] = entry
    if validated("tasks/result", wire.CallToolResult, payload, fails):
        res = types.CallToolResult.model_validate(payload, by_name=False)
        entry["text"] = res.content[0].text if res.content and hasattr(res.content[0], "text") else ""
        related = (payload.get("_meta") or {}).get(RELATED)
        if not isinstance(related, dict) or related.get("taskId") != task_id:
            fails.append(f"tasks/result _meta[{RELATED!r}] must be {{'taskId': {task_id!r}}}, got {related!r}")
        if current["status"] == "completed" and not res.is_error:
            if rule_run.output_schema is None:
                fails.append("rule_run has no outputSchema to validate against")
            else:
                try:
                    jsonschema.validate(res.structured_content, rule_run.output_schema)
                    entry["valid"] = True
                except jsonschema.ValidationError as e:
                    fails.append(f"tasks/result structuredContent fails rule_run outputSchema: {e.message}")
        elif current["status"] == "completed" and res.is_error:
            warns.append("task completed but result isError=true (spec: isError results SHOULD make the task failed)")
        else:
            fails.append(f"task ended {current['status']!r}: {current.get('statusMessage')!r}")

    # 6. tasks/list (paginated)
    if can_list:
        listed, cursor, pages = [], None, 0
        while True:
            page = await raw_request(session, "tasks/list", {"cursor": cursor} if cursor else {})
            pages += 1
            if not validated("tasks/list", wire.ListTasksResult, page, fails):
                break
            for i, t in enumerate(page["tasks"]):
                check_task(f"tasks/list[{i}]", t, None, fails)
            listed.extend(page["tasks"])
            cursor = page.get("nextCursor")
            if not cursor or pages >= 50:
                break
        ids = [t.get("taskId") for t in listed]
        out["list"] = {"pages": pages, "count": len(listed), "contains_task": task_id in ids}
        if task_id not in ids:
            fails.append("tasks/list does not include the task (MUST, since tasks/get returns it)")
    else:
        out["list"] = "not advertised"

    # 7. tasks/cancel on the finished task -> -32602
    try:
        res = await raw_request(session, "tasks/cancel", {"taskId": task_id})
        out["cancel_finished"] = {"result": res}
        fails.append("tasks/cancel on a terminal task succeeded (spec: MUST reject with -32602)")
    except MCPError as e:
        out["cancel_finished"] = {"error": err_of(e)}
        want = -32602 if can_cancel else (-32602, -32601)
        if e.code not in (want if isinstance(want, tuple) else (want,)):
            fails.append(f"tasks/cancel on a terminal task: code {e.code}, want -32602")
    out["cancel_advertised"] = can_cancel

    # 8. tasks/get with an unknown id -> -32602
    bogus = f"no-such-task-{uuid.uuid4()}"
    try:
        res = await raw_request(session, "tasks/get", {"taskId": bogus})
        out["get_unknown"] = {"result": res}
        fails.append("tasks/get with an unknown taskId succeeded")
    except MCPError as e:
        out["get_unknown"] = {"error": err_of(e)}
        if e.code != -32602:
            fails.append(f"tasks/get unknown taskId: code {e.code}, want -32602")

    await asyncio.sleep(0.2)  # let any trailing notifications/tasks/status arrive
    out["status_notifications"] = [
        {"taskId": n.task_id, "status": n.status} for n in seen_notifications
    ]  # optional per spec: informational only


def make_session(read, write, seen):
    async def on_status(params):
        seen.append(params)

    binding = NotificationBinding(
        method="notifications/tasks/status", params_type=types.TaskStatusNotificationParams, handler=on_status
    )
    return ClientSession(read, write, notification_bindings=[binding])


async def guarded(session, facility, seen):
    await session.initialize()
    out = {"failures": [], "warnings": []}  # filled in as we go, so a fatal stop keeps what was seen
    try:
        await exercise(session, facility, seen, out)
    except Failed as e:
        out["failures"].append(str(e))
        out["fatal"] = True
    except MCPError as e:
        out["failures"].append(f"unexpected MCP error: {err_of(e)}")
        out["fatal"] = True
    return out


async def run_stdio(camber, store, facility):
    params = StdioServerParameters(command=camber, args=["mcp", "--store", store, "--allow-all-active"])
    seen = []
    async with stdio_client(params) as (read, write):
        async with make_session(read, write, seen) as session:
            return await guarded(session, facility, seen)


async def run_http(url, token, facility):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token != "-" else {}
    seen = []
    async with httpx2.AsyncClient(headers=headers, timeout=60) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            read, write = streams[0], streams[1]
            async with make_session(read, write, seen) as session:
                return await guarded(session, facility, seen)


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("stdio", "http"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    mode = sys.argv[1]
    if mode == "stdio":
        out = asyncio.run(run_stdio(sys.argv[2], sys.argv[3], sys.argv[4]))
    else:
        out = asyncio.run(run_http(sys.argv[2], sys.argv[3], sys.argv[4]))
    json.dump(out, sys.stdout, indent=1, default=str)
    sys.stdout.write("\n")
    sys.exit(1 if out.get("failures") else 0)


if __name__ == "__main__":
    main()
