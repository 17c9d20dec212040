"""Recorded answers of the Anthropic Messages API, served through the real client's HTTP transport.

Each JSON file here is a response body as the API sends it (a message, or an error body). The only
thing replaced in the tests is the transport: `RecordedApi.client()` is the portal's own client
(`conversions.language.llm.make_client`) whose httpx transport answers from these files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import httpx2

from conversions.language import llm

HERE = Path(__file__).parent
TIMEOUT = "timeout"


def recorded(name: str) -> dict[str, Any]:
    return json.loads((HERE / f"{name}.json").read_text())


class RecordedApi:
    """Answers each request with the next scripted answer; the last one repeats.

    An answer is a file name (HTTP 200 with that body), `(status, file name)` for an error, or
    `TIMEOUT` (the transport raises httpx2.ReadTimeout, as a server that never answers would).
    """

    def __init__(self, *answers: str | tuple[int, str]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx2.Request] = []
        # The API key and timeout of each client made.
        self.made: list[tuple[str, float]] = []

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if answer == TIMEOUT:
            raise httpx2.ReadTimeout("The read operation timed out", request=request)
        status, name = answer if isinstance(answer, tuple) else (200, answer)
        return httpx2.Response(status, json=recorded(name), headers={"request-id": "req_recorded"})

    def client(self, api_key: str = "sk-ant-test-key", timeout_s: float = 10.0) -> anthropic.Anthropic:
        self.made.append((api_key, timeout_s))
        return llm.make_client(
            api_key, timeout_s, http_client=httpx2.Client(transport=httpx2.MockTransport(self.handle))
        )

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(request.content) for request in self.requests]

    def prompt(self, index: int = -1) -> str:
        """The user turn of a request: the question asked, the history and the message."""
        return self.bodies()[index]["messages"][0]["content"]
