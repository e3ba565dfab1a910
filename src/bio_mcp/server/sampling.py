"""MCP sampling for tool.rag_answer: the client's model writes the answer from numbered evidence.

`SamplingAnswerWriter` is the server's `AnswerWriter` (features/evidence/answer.py): it asks the
client of the request being served (`current_request`, set by the server's middleware) through
`sampling/createMessage`, and answers None, so the extractive answer stands, when there is no
request, the client did not declare the sampling capability, or the call fails or returns no text.
The feature then checks every sentence's citations; the model's text is never trusted as is.

Sampling is deprecated from protocol 2026-07-28 (SEP-2577), whose connections have no back-channel
for a request in the middle of a call (they would need the InputRequiredResult round trip, not
implemented here): there the answer stays extractive. Clients on the handshake versions (before
2026-07-28) are served; the SDK's deprecation warning is expected and silenced.
"""

from __future__ import annotations

import logging
import warnings
from contextvars import ContextVar
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError, NoBackChannelError
from mcp_types import ClientCapabilities, SamplingCapability, SamplingMessage, TextContent

from bio_mcp.features.evidence.answer_models import Lang

log = logging.getLogger("bio_mcp.sampling")

# The request being served (the server's middleware sets it for every request).
current_request: ContextVar[ServerRequestContext[Any, Any] | None] = ContextVar("current_request", default=None)

MAX_TOKENS = 700
_LANGUAGE = {"en": "English", "th": "Thai"}
SYSTEM_PROMPT = (
    "You answer biomedical questions from numbered evidence only. Write 1 to 5 short sentences in {language}. "
    "End every sentence with the number(s) of the evidence it rests on, like [1] or [2][3]. Use nothing that "
    "is not in the evidence. When you quote, copy the evidence's words exactly inside double quotes, in the "
    "evidence's own language."
)


class SamplingAnswerWriter:
    async def write(self, question: str, numbered_evidence: str, lang: Lang) -> str | None:
        request = current_request.get()
        if request is None:
            return None
        session = request.session
        if not session.check_client_capability(ClientCapabilities(sampling=SamplingCapability())):
            return None
        prompt = f"Question: {question}\n\nEvidence:\n{numbered_evidence}"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                result = await session.create_message(
                    messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
                    max_tokens=MAX_TOKENS,
                    system_prompt=SYSTEM_PROMPT.format(language=_LANGUAGE[lang]),
                    temperature=0.0,
                    related_request_id=request.request_id,
                )
        except NoBackChannelError:
            return None
        except (MCPError, RuntimeError, ValueError) as exc:
            log.warning("sampling failed, answering extractively: %s", exc)
            return None
        content = result.content
        return content.text if isinstance(content, TextContent) and content.text.strip() else None
