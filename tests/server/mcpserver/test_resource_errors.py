"""How a failed `resources/read` reaches the client, as in the official SDK: the error's own message
with the URI as data; -32602 for a resource that does not exist (in every revision), -32603 for
any other failure; a crash is answered with a message naming only the URI (details in the log)."""

from __future__ import annotations

import logging

import pytest

from mcp import Client, MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, UnexpectedResourceError

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]


def make_server() -> MCPServer:
    mcp = MCPServer("library")

    @mcp.resource("books://{isbn}")
    def book(isbn: str) -> str:
        if isbn == "000":
            raise ResourceNotFoundError(f"No book with ISBN {isbn} in the catalog")
        if isbn == "locked":
            raise ResourceError("That shelf is locked today")
        raise ValueError("the index is corrupt: secret-path /srv/idx")

    @mcp.resource("config://broken")
    def broken() -> str:
        raise RuntimeError("disk on fire")

    @mcp.resource("config://retired")
    def retired() -> str:
        raise ResourceNotFoundError("Retired in v2")

    return mcp


async def read_error(mode: str, uri: str) -> MCPError:
    async with Client(make_server(), mode=mode) as client:
        with pytest.raises(MCPError) as info:
            await client.read_resource(uri)
    return info.value


@pytest.mark.parametrize("mode", MODES)
async def test_a_resource_not_found_error_from_the_function_keeps_its_own_message(mode: str) -> None:
    code = -32602  # on every revision, as officially (SEP-2164)
    error = await read_error(mode, "books://000")
    assert (error.code, error.message, error.data) == (
        code, "No book with ISBN 000 in the catalog", {"uri": "books://000"})
    error = await read_error(mode, "config://retired")
    assert (error.code, error.message, error.data) == (code, "Retired in v2", {"uri": "config://retired"})


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknown_uri_is_invalid_params_naming_it(mode: str) -> None:
    error = await read_error(mode, "nothing://here")
    assert (error.code, error.message, error.data) == (-32602,
                                                       "Unknown resource: nothing://here", {"uri": "nothing://here"})


@pytest.mark.parametrize("mode", MODES)
async def test_a_resource_error_from_the_function_is_an_internal_error_with_its_message(mode: str) -> None:
    error = await read_error(mode, "books://locked")
    assert (error.code, error.message, error.data) == (-32603, "That shelf is locked today", {"uri": "books://locked"})


@pytest.mark.parametrize("mode", MODES)
async def test_a_template_crash_names_only_the_uri_once_and_logs_the_cause(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="mcp.server"):
        error = await read_error(mode, "books://123")
    assert (error.code, error.message, error.data) == (
        -32603, "Error creating resource from template books://123", {"uri": "books://123"})
    assert "secret-path" not in str(error)
    assert "the index is corrupt" in caplog.text


@pytest.mark.parametrize("mode", MODES)
async def test_a_static_resource_crash_names_only_the_uri(mode: str) -> None:
    error = await read_error(mode, "config://broken")
    assert (error.code, error.message, error.data) == (-32603, "Error reading resource config://broken",
                                                       {"uri": "config://broken"})


async def test_read_resource_on_the_server_raises_the_unexpected_resource_error_with_its_cause() -> None:
    with pytest.raises(UnexpectedResourceError) as info:
        await make_server().read_resource("books://123")
    assert str(info.value) == "Error creating resource from template books://123"
    assert isinstance(info.value, ResourceError) and isinstance(info.value.__cause__, ValueError)
