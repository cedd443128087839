"""docs/servers/media.md: `Image` and `Audio` become base64 content blocks with a MIME type from the
suffix (or `format=`, or a default); an `EmbeddedResource` or `ResourceLink` goes out untouched;
`Icon`s ride on the server, tools, resources and prompts."""

from __future__ import annotations

import base64
from pathlib import Path

import anyio
import pytest
from docskit import stdio_script

from mcp import Client
from mcp.server import MCPServer
from mcp.server.mcpserver import Audio, Image
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    Icon,
    ImageContent,
    ResourceLink,
    TextResourceContents,
)

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WAV = b"RIFF\x00\x00\x00\x00WAVEfmt "


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def studio(folder: Path) -> MCPServer:
    (folder / "badge.png").write_bytes(PNG)
    (folder / "bell.wav").write_bytes(WAV)
    (folder / "clip.mp3").write_bytes(b"ID3")
    (folder / "photo.jpeg").write_bytes(b"\xff\xd8")
    (folder / "mystery.xyz").write_bytes(b"?")
    mcp = MCPServer("Studio")

    @mcp.tool()
    def badge() -> Image:
        return Image(path=folder / "badge.png")

    @mcp.tool()
    def photo() -> Image:
        return Image(path=folder / "photo.jpeg")

    @mcp.tool()
    def odd_image() -> Image:
        return Image(path=folder / "mystery.xyz")

    @mcp.tool()
    def bell() -> Audio:
        return Audio(path=folder / "bell.wav")

    @mcp.tool()
    def clip() -> Audio:
        return Audio(path=folder / "clip.mp3")

    @mcp.tool()
    def raw_gif() -> Image:
        return Image(data=b"GIF89a", format="gif")

    @mcp.tool()
    def raw_image_no_format() -> Image:
        return Image(data=b"GIF89a")

    @mcp.tool()
    def raw_audio_no_format() -> Audio:
        return Audio(data=b"ID3")

    @mcp.resource("studio://notes", mime_type="text/markdown")
    def notes() -> str:
        return "# Notes"

    @mcp.tool()
    def attach_notes() -> EmbeddedResource:
        return EmbeddedResource(type="resource", resource=TextResourceContents(
            uri="studio://notes", mime_type="text/markdown", text=notes()))

    @mcp.tool()
    def attach_blob() -> EmbeddedResource:
        return EmbeddedResource(type="resource", resource=BlobResourceContents(
            uri="studio://badge", mime_type="image/png", blob=b64(PNG)))

    @mcp.tool()
    def point_at_notes() -> ResourceLink:
        return ResourceLink(type="resource_link", name="notes", uri="studio://notes")

    return mcp


async def test_image_and_audio_from_a_path_are_base64_blocks_typed_by_suffix(tmp_path: Path) -> None:
    async with Client(studio(tmp_path)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name in ("badge", "bell", "raw_gif", "attach_notes", "point_at_notes"):
            assert tools[name].output_schema is None
        badge = await client.call_tool("badge", {})
        assert badge.content == [ImageContent(type="image", data=b64(PNG), mime_type="image/png")]
        assert badge.structured_content is None
        bell = await client.call_tool("bell", {})
        assert bell.content == [AudioContent(type="audio", data=b64(WAV), mime_type="audio/wav")]
        assert bell.structured_content is None
        mimes = {name: (await client.call_tool(name, {})).content[0].mime_type  # type: ignore[union-attr]
                 for name in ("photo", "clip", "odd_image")}
        assert mimes == {"photo": "image/jpeg", "clip": "audio/mpeg", "odd_image": "application/octet-stream"}


async def test_bytes_take_their_format_or_fall_back_to_png_and_wav(tmp_path: Path) -> None:
    async with Client(studio(tmp_path)) as client:
        gif = (await client.call_tool("raw_gif", {})).content[0]
        assert isinstance(gif, ImageContent) and (gif.mime_type, gif.data) == ("image/gif", b64(b"GIF89a"))
        assert (await client.call_tool("raw_image_no_format", {})).content[0].mime_type == "image/png"  # type: ignore[union-attr]
        assert (await client.call_tool("raw_audio_no_format", {})).content[0].mime_type == "audio/wav"  # type: ignore[union-attr]


def test_an_image_takes_exactly_one_of_path_and_data(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        Image()
    with pytest.raises(ValueError):
        Image(path=tmp_path / "a.png", data=b"x")


async def test_embedded_resources_and_links_go_out_as_built(tmp_path: Path) -> None:
    async with Client(studio(tmp_path)) as client:
        attached = await client.call_tool("attach_notes", {})
        assert attached.content == [EmbeddedResource(type="resource", resource=TextResourceContents(
            uri="studio://notes", mime_type="text/markdown", text="# Notes"))]
        assert attached.structured_content is None
        blob = (await client.call_tool("attach_blob", {})).content[0]
        assert isinstance(blob, EmbeddedResource) and isinstance(blob.resource, BlobResourceContents)
        assert base64.b64decode(blob.resource.blob) == PNG
        link = (await client.call_tool("point_at_notes", {})).content[0]
        assert isinstance(link, ResourceLink) and str(link.uri) == "studio://notes"
        read = await client.read_resource("studio://notes")
        assert read.contents[0].text == "# Notes"  # type: ignore[union-attr]


async def test_icons_travel_with_the_server_tools_resources_and_prompts() -> None:
    mark = Icon(src="https://example.com/mark.png", mime_type="image/png", sizes=["48x48"])
    vector = Icon(src="data:image/svg+xml;base64,PHN2Zy8+", mime_type="image/svg+xml", sizes=["any"], theme="dark")
    mcp = MCPServer("Studio", icons=[mark])

    @mcp.tool(icons=[vector])
    def colours() -> list[str]:
        return ["#000"]

    @mcp.resource("studio://about", icons=[mark])
    def about() -> str:
        return "about"

    @mcp.prompt(icons=[vector])
    def greet() -> str:
        return "hello"

    async with Client(mcp) as client:
        assert client.server_info is not None
        assert client.server_info.icons == [mark]
        assert (await client.list_tools()).tools[0].icons == [vector]
        assert (await client.list_resources()).resources[0].icons == [mark]
        assert (await client.list_prompts()).prompts[0].icons == [vector]


async def test_an_image_tool_over_stdio_arrives_as_an_image_block(tmp_path: Path) -> None:
    (tmp_path / "badge.png").write_bytes(PNG)
    params = stdio_script(tmp_path, '''
        from pathlib import Path
        from mcp.server import MCPServer
        from mcp.server.mcpserver import Image

        mcp = MCPServer("Studio")

        @mcp.tool()
        def badge() -> Image:
            return Image(path=Path(__file__).parent / "badge.png")

        mcp.run()
    ''')
    with anyio.fail_after(30):
        async with Client(params) as client:
            result = await client.call_tool("badge", {})
            assert result.content == [ImageContent(type="image", data=b64(PNG), mime_type="image/png")]
            assert result.structured_content is None
