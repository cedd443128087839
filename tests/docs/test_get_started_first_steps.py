"""docs/get-started/first-steps.md: one server with a tool, a resource template and a prompt; the
name, description and schema come from the functions; a template is listed apart from concrete
resources; `MCPServer` declares the three primitives' capabilities and nothing optional; the two
import paths are `from mcp import Client` and `from mcp.server import MCPServer`."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from docskit import stdio_script

import mcp as mcp_package
from mcp import Client
from mcp.server import MCPServer

pytestmark = pytest.mark.anyio

SOURCE = '''
from mcp.server import MCPServer

mcp = MCPServer("Notebook")


@mcp.tool()
def multiply(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


@mcp.resource("welcome://{name}")
def welcome(name: str) -> str:
    """Welcome someone by name."""
    return f"Welcome, {name}!"


@mcp.prompt()
def shorten(text: str) -> str:
    """Shorten a text to one line."""
    return f"Shorten this to one line:\\n\\n{text}"


if __name__ == "__main__":
    mcp.run()
'''


def notebook() -> MCPServer:
    namespace: dict[str, object] = {"__name__": "notebook"}
    exec(compile(SOURCE, "notebook.py", "exec"), namespace)
    server = namespace["mcp"]
    assert isinstance(server, MCPServer)
    return server


async def check_the_three_primitives(client: Client) -> None:
    (tool,) = (await client.list_tools()).tools
    assert (tool.name, tool.description) == ("multiply", "Multiply two numbers.")
    assert tool.input_schema["required"] == ["a", "b"]
    assert tool.input_schema["properties"]["a"]["type"] == "integer"
    assert (await client.call_tool("multiply", {"a": 6, "b": 7})).structured_content == {"result": 42}

    assert (await client.list_resources()).resources == []
    (template,) = (await client.list_resource_templates()).resource_templates
    assert (template.name, template.uri_template) == ("welcome", "welcome://{name}")
    assert (await client.read_resource("welcome://World")).contents[0].text == "Welcome, World!"  # type: ignore[union-attr]

    (prompt,) = (await client.list_prompts()).prompts
    assert prompt.name == "shorten" and prompt.arguments is not None
    assert [(a.name, a.required) for a in prompt.arguments] == [("text", True)]
    (message,) = (await client.get_prompt("shorten", {"text": "a b c"})).messages
    assert message.role == "user" and message.content.text == "Shorten this to one line:\n\na b c"  # type: ignore[union-attr]


async def test_one_server_exposes_all_three_primitives_in_memory() -> None:
    async with Client(notebook()) as client:
        await check_the_three_primitives(client)


async def test_the_declared_capabilities_are_the_three_primitives_only() -> None:
    async with Client(notebook()) as client:
        assert client.server_capabilities is not None
        declared = client.server_capabilities.model_dump(exclude_none=True)
        assert set(declared) == {"prompts", "resources", "tools"}
        assert declared["tools"]["list_changed"] is True
        assert declared["prompts"]["list_changed"] is True
        assert declared["resources"] == {"subscribe": True, "list_changed": True}


def test_mcpserver_is_imported_from_mcp_server_not_from_mcp() -> None:
    with pytest.raises(ImportError):
        from mcp import MCPServer  # noqa: F401  # pyright: ignore[reportUnusedImport, reportAttributeAccessIssue]
    assert not hasattr(mcp_package, "MCPServer")


async def test_the_same_file_over_stdio_as_the_inspector_runs_it(tmp_path: Path) -> None:
    with anyio.fail_after(30):
        async with Client(stdio_script(tmp_path, SOURCE)) as client:
            await check_the_three_primitives(client)
