"""docs/servers/resources.md: a decorated function is a resource at a URI; a placeholder makes it a
template listed apart; parameters and placeholders must agree at import time; the function runs
on read only; str is text, bytes a blob, anything else JSON text, labelled by `mime_type=`."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import anyio
import pytest
from docskit import stdio_script
from pydantic import BaseModel

from mcp import Client
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resources import BinaryResource, FileResource, TextResource
from mcp.types import BlobResourceContents, TextResourceContents

pytestmark = pytest.mark.anyio


class Hours(BaseModel):
    opens: int
    closes: int


def garden(calls: list[str]) -> MCPServer:
    mcp = MCPServer("Garden")

    @mcp.resource("settings://site")
    def site_settings() -> str:
        """The site's settings."""
        calls.append("site")
        return "units=metric\nregion=north"

    @mcp.resource("plots://{plot_id}/summary")
    def plot_summary(plot_id: str, ctx: Context) -> str:
        """One plot's summary."""
        calls.append(plot_id)
        return f"Plot {plot_id}: tomatoes ({type(ctx).__name__})"

    @mcp.resource("notes://readme", mime_type="text/markdown")
    def readme() -> str:
        return "# Garden"

    @mcp.resource("stats://beds", mime_type="application/json")
    def bed_stats() -> dict[str, int]:
        return {"beds": 12, "empty": 3}

    @mcp.resource("stats://unlabelled")
    def unlabelled() -> list[int]:
        return [1, 2]

    @mcp.resource("stats://hours")
    def hours() -> Hours:
        return Hours(opens=8, closes=18)

    @mcp.resource("pictures://dot", mime_type="image/gif")
    def dot() -> bytes:
        return b"GIF89a\x01"

    @mcp.resource("settings://other", name="renamed", title="Other settings", description="Set explicitly.")
    def other() -> str:
        return "x"

    return mcp


async def test_a_static_resource_is_listed_from_the_function_and_read_as_text() -> None:
    calls: list[str] = []
    async with Client(garden(calls)) as client:
        listed = {r.name: r for r in (await client.list_resources()).resources}
        site = listed["site_settings"]
        assert (str(site.uri), site.description, site.mime_type) == ("settings://site", "The site's settings.",
                                                                    "text/plain")
        assert calls == []  # listing runs no function
        result = await client.read_resource("settings://site")
        assert result.contents == [TextResourceContents(uri="settings://site", mime_type="text/plain",
                                                        text="units=metric\nregion=north")]
        assert calls == ["site"]
        other = listed["renamed"]
        assert (other.title, other.description) == ("Other settings", "Set explicitly.")


async def test_a_template_is_listed_apart_and_serves_every_matching_uri_with_the_concrete_uri() -> None:
    calls: list[str] = []
    async with Client(garden(calls)) as client:
        assert "plot_summary" not in {r.name for r in (await client.list_resources()).resources}
        (template,) = [t for t in (await client.list_resource_templates()).resource_templates
                       if t.name == "plot_summary"]
        assert (template.uri_template, template.description, template.mime_type) == (
            "plots://{plot_id}/summary", "One plot's summary.", "text/plain")
        for plot in ("7", "east"):
            (content,) = (await client.read_resource(f"plots://{plot}/summary")).contents
            assert isinstance(content, TextResourceContents)
            assert (str(content.uri), content.text) == (f"plots://{plot}/summary", f"Plot {plot}: tomatoes (Context)")
        assert calls == ["7", "east"]


def test_a_placeholder_that_no_parameter_matches_is_refused_at_decoration() -> None:
    mcp = MCPServer("Garden")
    with pytest.raises(ValueError, match=r"Mismatch between URI parameters \{'plot_id'\} and function parameters "
                                         r"\{'plot'\}"):

        @mcp.resource("plots://{plot_id}/summary")
        def plot_summary(plot: str) -> str:
            return plot


async def test_str_is_text_bytes_a_blob_and_anything_else_json_with_the_declared_mime_type() -> None:
    async with Client(garden([])) as client:
        (readme,) = (await client.read_resource("notes://readme")).contents
        assert isinstance(readme, TextResourceContents) and (readme.mime_type, readme.text) == ("text/markdown",
                                                                                              "# Garden")
        (stats,) = (await client.read_resource("stats://beds")).contents
        assert isinstance(stats, TextResourceContents) and stats.mime_type == "application/json"
        assert stats.text == '{\n  "beds": 12,\n  "empty": 3\n}'
        (plain,) = (await client.read_resource("stats://unlabelled")).contents
        assert isinstance(plain, TextResourceContents) and plain.mime_type == "text/plain"  # never guessed
        assert json.loads(plain.text) == [1, 2]
        (model,) = (await client.read_resource("stats://hours")).contents
        assert json.loads(model.text) == {"opens": 8, "closes": 18}  # type: ignore[union-attr]
        (blob,) = (await client.read_resource("pictures://dot")).contents
        assert isinstance(blob, BlobResourceContents) and blob.mime_type == "image/gif"
        assert base64.b64decode(blob.blob) == b"GIF89a\x01"


async def test_ready_made_resource_classes_register_with_add_resource(tmp_path: Path) -> None:
    (tmp_path / "plan.txt").write_text("rows of beans")
    mcp = MCPServer("Garden")
    mcp.add_resource(TextResource(uri="fixed://text", name="text", text="fixed words"))
    mcp.add_resource(BinaryResource(uri="fixed://bytes", name="bytes", data=b"\x00\x01",
                                    mime_type="application/octet-stream"))
    mcp.add_resource(FileResource(uri="file://plan", name="plan", path=(tmp_path / "plan.txt").resolve()))
    async with Client(mcp) as client:
        assert (await client.read_resource("fixed://text")).contents[0].text == "fixed words"  # type: ignore[union-attr]
        (data,) = (await client.read_resource("fixed://bytes")).contents
        assert isinstance(data, BlobResourceContents) and base64.b64decode(data.blob) == b"\x00\x01"
        assert (await client.read_resource("file://plan")).contents[0].text == "rows of beans"  # type: ignore[union-attr]


async def test_resources_over_a_stdio_subprocess(tmp_path: Path) -> None:
    params = stdio_script(tmp_path, '''
        from mcp.server import MCPServer

        mcp = MCPServer("Garden")

        @mcp.resource("settings://site")
        def site_settings() -> str:
            """The site's settings."""
            return "units=metric"

        @mcp.resource("plots://{plot_id}/summary")
        def plot_summary(plot_id: str) -> str:
            return f"Plot {plot_id}"

        mcp.run()
    ''')
    with anyio.fail_after(30):
        async with Client(params) as client:
            assert [str(r.uri) for r in (await client.list_resources()).resources] == ["settings://site"]
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["plots://{plot_id}/summary"]
            assert (await client.read_resource("plots://9/summary")).contents[0].text == "Plot 9"  # type: ignore[union-attr]
