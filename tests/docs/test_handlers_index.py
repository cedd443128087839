"""docs/handlers/index.md: inside a handler, the arguments come from the client and everything
else from the `Context`, `Resolve` dependencies and the lifespan; while running it can report
progress, log, ask (resolver), and tell subscribers. One tool using all of them at once."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

import pytest
from pydantic import BaseModel

from mcp import Client
from mcp.client import ClientRequestContext
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.types import ElicitRequestParams, ElicitResult, TextContent

pytestmark = pytest.mark.anyio


class Ok(BaseModel):
    go: bool


def confirm() -> Elicit[Ok]:
    return Elicit("Proceed?", Ok)


async def test_one_handler_uses_context_dependencies_lifespan_progress_logging_and_subscriptions(
        caplog: pytest.LogCaptureFixture) -> None:
    @asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[dict[str, str]]:
        yield {"region": "eu"}

    mcp = MCPServer("Everything", lifespan=lifespan)
    logger = logging.getLogger("everything")

    @mcp.tool()
    async def run_job(job: str, ok: Annotated[Ok, Resolve(confirm)], ctx: Context) -> str:
        logger.info("running %s", job)
        await ctx.report_progress(1, total=1, message="done")
        await ctx.notify_resource_updated(f"job://{job}")
        return f"{job} in {ctx.request_context.lifespan_context['region']}: go={ok.go}"

    async def yes(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action="accept", content={"go": True})

    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    with caplog.at_level(logging.INFO, logger="everything"):
        async with Client(mcp, elicitation_callback=yes) as client:
            (tool,) = (await client.list_tools()).tools
            assert set(tool.input_schema["properties"]) == {"job"}
            result = await client.call_tool("run_job", {"job": "backup"}, progress_callback=on_progress)
    assert result.content == [TextContent(text="backup in eu: go=True")]
    assert progress == [1]
    assert "running backup" in caplog.text
