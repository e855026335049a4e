"""Drive `camber serve` over A2A streaming (SendStreamingMessage, SSE) with the official a2a-sdk client.

usage: a2a_stream_client.py BASE_URL TOKEN FACILITY

Resolves the agent card, streams one `rule_run` call on FACILITY and records every streamed event
in order (its kind, task state, status message text), the final task state, the result data's
top-level keys and what went over the wire (each JSON-RPC method and its response's
content type). Prints one JSON document; exits non-zero on any failure (an exception, a card
without `capabilities.streaming`, an answer that is not an SSE stream, no terminal state, a task
that did not complete, or no data part in its result), saying why on stderr.
"""

import asyncio
import json
import sys

import httpx
from google.protobuf import json_format, struct_pb2

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import a2a_pb2

TERMINAL = {"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"}


def data_message(capability, arguments):
    data = struct_pb2.Value()
    json_format.ParseDict({"capability": capability, "arguments": arguments}, data)
    return a2a_pb2.Message(message_id=f"m-{capability}-stream", role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(data=data)])


def message_text(message):
    return "".join(p.text for p in message.parts if p.WhichOneof("content") == "text")


def state_name(state):
    return a2a_pb2.TaskState.Name(state)


async def main(base, token, facility):
    headers = {"Authorization": f"Bearer {token}"} if token != "-" else {}
    out = {"events": [], "wire": []}
    problems = []

    async def on_request(request):
        try:
            body = json.loads(request.content or b"null")
        except (ValueError, httpx.RequestNotRead):
            body = None
        row = {"http": request.method, "path": request.url.path, "accept": request.headers.get("accept"),
               "a2a_version": request.headers.get("a2a-version")}
        if isinstance(body, dict):
            row["method"] = body.get("method")
        out["wire"].append(row)

    async def on_response(response):
        for row in reversed(out["wire"]):
            if row["path"] == response.request.url.path and "status" not in row:
                row["status"] = response.status_code
                row["content_type"] = response.headers.get("content-type")
                break

    hooks = {"request": [on_request], "response": [on_response]}
    async with httpx.AsyncClient(headers=headers, timeout=120, event_hooks=hooks) as http:
        client = await create_client(base, ClientConfig(streaming=True, httpx_client=http), resolver_http_kwargs={"headers": headers})
        card = await A2ACardResolver(http, base).get_agent_card()
        out["skills"] = sorted(s.id for s in card.skills)
        out["card_streaming"] = card.capabilities.streaming
        if not card.capabilities.streaming:
            # the SDK would silently fall back to SendMessage (base_client.py:70)
            problems.append("the agent card does not declare capabilities.streaming: true")

        req = a2a_pb2.SendMessageRequest(message=data_message("rule_run", {"facility_id": facility}))
        task = a2a_pb2.Task()  # the task as the stream builds it
        task_ids = set()
        final_state = None
        async for event in client.send_message(req):
            kind = event.WhichOneof("payload")
            row = {"kind": kind}
            if kind == "task":
                t = event.task
                task.CopyFrom(t)
                task_ids.add(t.id)
                row["state"] = final_state = state_name(t.status.state)
                row["artifacts"] = len(t.artifacts)
                if t.status.HasField("message"):
                    row["text"] = message_text(t.status.message)
            elif kind == "status_update":
                s = event.status_update
                task_ids.add(s.task_id)
                task.status.CopyFrom(s.status)
                row["state"] = final_state = state_name(s.status.state)
                if s.status.HasField("message"):
                    row["text"] = message_text(s.status.message)
            elif kind == "artifact_update":
                a = event.artifact_update
                task_ids.add(a.task_id)
                row.update({"artifact_id": a.artifact.artifact_id, "append": a.append, "last_chunk": a.last_chunk,
                            "parts": [p.WhichOneof("content") for p in a.artifact.parts]})
                same = [x for x in task.artifacts if x.artifact_id == a.artifact.artifact_id]
                if a.append and same:
                    same[0].parts.extend(a.artifact.parts)
                elif same:
                    same[0].CopyFrom(a.artifact)
                else:
                    task.artifacts.add().CopyFrom(a.artifact)
            elif kind == "message":
                row["text"] = message_text(event.message)
                row["role"] = a2a_pb2.Role.Name(event.message.role)
            else:
                # a result that is not {"task"|"message"|"statusUpdate"|"artifactUpdate": ...} parses to nothing
                problems.append(f"event {len(out['events'])} is none of task, message, statusUpdate, artifactUpdate")
            if row.get("state") == "TASK_STATE_UNSPECIFIED":
                # an unknown state name ("working") parses to 0, silently
                problems.append(f"event {len(out['events'])} has no (or an unknown) task state")
            out["events"].append(row)

        out["task_ids"] = len(task_ids)
        out["final_state"] = final_state
        if task.status.HasField("message"):
            out["final_text"] = message_text(task.status.message)
        for artifact in task.artifacts:
            for part in artifact.parts:
                if part.WhichOneof("content") == "data" and "data_keys" not in out:
                    d = json_format.MessageToDict(part.data)
                    out["data_keys"] = sorted(d) if isinstance(d, dict) else None
                    inner = d.get("data") if isinstance(d, dict) else None
                    out["result_keys"] = sorted(inner) if isinstance(inner, dict) else None
                elif part.WhichOneof("content") == "text" and "result_text" not in out:
                    out["result_text"] = part.text
        if len(task_ids) == 1:
            again = await client.get_task(a2a_pb2.GetTaskRequest(id=task_ids.pop()))
            out["get_state"] = state_name(again.status.state)
        await client.close()

    streamed = [w for w in out["wire"] if w.get("method") == "SendStreamingMessage"]
    if not streamed:
        problems.append("the client never sent SendStreamingMessage")
    elif "text/event-stream" not in (streamed[0].get("content_type") or ""):
        problems.append(f"SendStreamingMessage was answered with {streamed[0].get('content_type')!r}, not an SSE stream")
    if not out["events"]:
        problems.append("no events were streamed")
    if out["task_ids"] > 1:
        problems.append("the events name more than one task")
    if final_state not in TERMINAL:
        problems.append(f"the stream ended without a terminal state (last: {final_state})")
    elif final_state != "TASK_STATE_COMPLETED":
        problems.append(f"the task ended {final_state}: {out.get('final_text', '')}")
    elif not out.get("data_keys"):
        problems.append("the completed task has no data part in its artifacts")
    out["problems"] = problems
    json.dump(out, sys.stdout)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
