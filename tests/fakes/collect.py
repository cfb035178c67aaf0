"""Play one request through a real provider adapter and keep everything it yielded."""

from __future__ import annotations

import asyncio

from pseudoclaude.llm.errors import ProviderError
from pseudoclaude.llm.provider import Provider, Request, StreamEvent


def collect_stream(provider: Provider, request: Request) -> tuple[list[StreamEvent], ProviderError | None]:
    """Every event the provider streamed for ``request``, and the error it raised (if any); closes it."""

    async def go() -> tuple[list[StreamEvent], ProviderError | None]:
        events: list[StreamEvent] = []
        try:
            async for event in provider.stream(request):
                events.append(event)
        except ProviderError as error:
            return events, error
        finally:
            await provider.aclose()
        return events, None

    return asyncio.run(go())
