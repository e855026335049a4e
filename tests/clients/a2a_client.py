"""Drive `camber serve` over A2A with the official a2a-sdk client.

usage: a2a_client.py BASE_URL TOKEN FACILITY

Resolves the agent card, sends one message per call below and reads the tasks back; prints
one JSON document; exits non-zero on any failure.
"""

import asyncio
import json
import sys

import httpx
from google.protobuf import json_format, struct_pb2

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import a2a_pb2


def data_message(capability, arguments):
    data = struct_pb2.Value()
    json_format.ParseDict({"capability": capability, "arguments": arguments}, data)
    return a2a_pb2.Message(message_id=f"m-{capability}", role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(data=data)])


async def main(base, token, facility):
    headers = {"Authorization": f"Bearer {token}"} if token != "-" else {}
    out = {}
    async with httpx.AsyncClient(headers=headers, timeout=60) as http:
        client = await create_client(base, ClientConfig(streaming=False, httpx_client=http), resolver_http_kwargs={"headers": headers})
        card = await A2ACardResolver(http, base).get_agent_card()
        out["skills"] = sorted(s.id for s in card.skills)
        out["bearer"] = card.security_schemes["bearer"].http_auth_security_scheme.scheme if "bearer" in card.security_schemes else None
        for cap, args in [("points", {"facility_id": facility}), ("points", {"facility_id": "nowhere"}), ("dataset_entry", {"dataset_id": "lbnl-sdahu"})]:
            req = a2a_pb2.SendMessageRequest(message=data_message(cap, args))
            last = None
            async for event in client.send_message(req):
                last = event
            task = last.task if last.HasField("task") else None
            row = {"state": a2a_pb2.TaskState.Name(task.status.state)}
            if task.artifacts:
                parts = task.artifacts[0].parts
                row["data"] = json_format.MessageToDict(parts[0].data)
                row["text"] = parts[1].text
            else:
                row["status_text"] = task.status.message.parts[0].text if task.status.message.parts else ""
            again = await client.get_task(a2a_pb2.GetTaskRequest(id=task.id))
            row["get_state"] = a2a_pb2.TaskState.Name(again.status.state)
            out.setdefault(cap, []).append(row)
        await client.close()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
