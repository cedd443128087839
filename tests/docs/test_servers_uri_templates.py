"""docs/servers/uri-templates.md: the RFC 6570 operators `@mcp.resource` matches, the templates
rejected at parse/decoration time (with the documented texts), the default path-safety checks and
how to relax them, and the standalone template engine on the low-level `Server`."""

from __future__ import annotations

from pathlib import Path

import pytest
from docskit import serve_http

from mcp import Client, MCPError
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.server.mcpserver import ResourceSecurity
from mcp.shared.path_security import contains_path_traversal, is_absolute_path, safe_join
from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate
from mcp.types import (
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    ResourceTemplate,
    TextResourceContents,
)

pytestmark = pytest.mark.anyio


def archive(seen: list[object]) -> MCPServer:
    mcp = MCPServer("Archive")

    @mcp.resource("records://{code}")
    def record(code: str) -> str:
        seen.append(code)
        return f"record {code}"

    @mcp.resource("invoices://{number}")
    def invoice(number: int) -> str:
        seen.append(number)
        return f"next {number + 1}"

    @mcp.resource("scans://{+path}")
    def scan(path: str) -> str:
        seen.append(path)
        return f"scan {path}"

    @mcp.resource("letters://{code}{?page,order}")
    def letters(code: str, page: int = 1, order: str = "oldest") -> str:
        return f"{code} page={page} order={order}"

    @mcp.resource("boxes://shelf{/path*}")
    def boxes(path: list[str]) -> str:
        seen.append(path)
        return "/".join(path)

    @mcp.resource("formats://report{.ext}")
    def report(ext: str) -> str:
        return ext

    return mcp


async def read_text(client: Client, uri: str) -> str:
    (content,) = (await client.read_resource(uri)).contents
    assert isinstance(content, TextResourceContents)
    return content.text


async def test_every_operator_extracts_what_the_page_says() -> None:
    seen: list[object] = []
    async with Client(archive(seen)) as client:
        assert await read_text(client, "records://A-17") == "record A-17"
        assert await read_text(client, "invoices://41") == "next 42"
        assert await read_text(client, "scans://2024/march/p1.png") == "scan 2024/march/p1.png"
        assert await read_text(client, "boxes://shelf/top/left") == "top/left"
        assert await read_text(client, "formats://report.json") == "json"
        assert seen == ["A-17", 41, "2024/march/p1.png", ["top", "left"]]


async def test_a_plain_placeholder_stops_at_a_slash() -> None:
    async with Client(archive([])) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource("records://A/17")
        assert raised.value.error.code == -32602


async def test_query_parameters_are_lenient_and_fall_back_to_defaults() -> None:
    async with Client(archive([])) as client:
        assert await read_text(client, "letters://L9") == "L9 page=1 order=oldest"
        assert await read_text(client, "letters://L9?order=newest") == "L9 page=1 order=newest"
        assert await read_text(client, "letters://L9?order=newest&page=3&extra=x") == "L9 page=3 order=newest"


def test_the_reference_table_holds_for_the_engine() -> None:
    assert UriTemplate.parse("u://{name}").match("u://alice") == {"name": "alice"}
    assert UriTemplate.parse("u://{name}").match("u://docs/intro.md") is None
    assert UriTemplate.parse("u://{+path}").match("u://docs/intro.md") == {"path": "docs/intro.md"}
    assert UriTemplate.parse("u://file{.ext}").match("u://file.json") == {"ext": "json"}
    assert UriTemplate.parse("u://api{/segment}").match("u://api/v2") == {"segment": "v2"}
    assert UriTemplate.parse("u://s{?key}").match("u://s?key=value") == {"key": "value"}
    assert UriTemplate.parse("u://s{?a,b}").match("u://s?a=1&b=2") == {"a": "1", "b": "2"}
    assert UriTemplate.parse("u://p{/path*}").match("u://p/a/b/c") == {"path": ["a", "b", "c"]}


def test_adjacent_variables_are_rejected_with_the_documented_text() -> None:
    with pytest.raises(InvalidUriTemplate) as raised:
        UriTemplate.parse("scans://{+path}{ext}")
    assert str(raised.value) == (
        "Variables 'path' and 'ext' are adjacent with no literal separator; matching cannot determine where one "
        "ends and the other begins. Add a literal between them or use a single variable.")
    assert UriTemplate.parse("scans://{+path}{.ext}").match("scans://a/b.png") == {"path": "a/b", "ext": "png"}
    assert UriTemplate.parse("scans://{+path}/{ext}").match("scans://a/b/png") == {"path": "a/b", "ext": "png"}


@pytest.mark.parametrize("template", ["x://{+a}/{+b}", "x://{#a}/{/b*}", "x://{/a*}/{+b}", "x://{.a*}/{;b*}"])
def test_a_second_multi_segment_variable_is_rejected(template: str) -> None:
    with pytest.raises(InvalidUriTemplate, match=r"^Template contains more than one multi-segment variable "
                                                 r"\(\{\+var\}, \{#var\}, or explode modifier\); matching would be "
                                                 r"ambiguous$"):
        UriTemplate.parse(template)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("x://{code", "Unclosed expression at position 4"),
        ("x://{a}/{a}", "Variable 'a' appears more than once; repeated variables are not supported"),
        ("x://{code:3}", "Prefix modifier {var:N} is not supported (in 'code:3' at position 4)"),
        ("x://s{?codes*}", "Explode modifier on {?codes*} is not supported for matching"),
    ],
)
def test_the_usual_syntax_errors_are_rejected_with_the_official_texts(template: str, message: str) -> None:
    with pytest.raises(InvalidUriTemplate) as raised:
        UriTemplate.parse(template)
    assert str(raised.value) == message


def test_the_decorator_parses_the_template_so_a_bad_one_never_reaches_a_server() -> None:
    mcp = MCPServer("Archive")
    with pytest.raises(InvalidUriTemplate):

        @mcp.resource("scans://{+path}{ext}")
        def scan(path: str, ext: str) -> str:
            return path


def test_a_query_parameter_without_a_default_is_refused_at_decoration_time() -> None:
    mcp = MCPServer("Archive")
    with pytest.raises(ValueError) as raised:

        @mcp.resource("letters://{code}{?page,order}")
        def letters(code: str, page: int, order: str) -> str:
            return code

    assert str(raised.value) == (
        "Resource 'letters://{code}{?page,order}': query parameter(s) ['order', 'page'] have no default value. "
        "A client may omit a {?...}/{&...} query parameter, so the matching handler parameter must declare a "
        "default.")


@pytest.mark.parametrize("uri", ["scans://../etc/passwd", "scans://..%2Fetc", "scans://%2E%2E/etc",
                                 "scans://..%5Cetc", "scans://a%00b", "scans:///etc/passwd", "scans://C:foo"])
async def test_unsafe_values_are_unknown_resources_and_the_handler_never_runs(uri: str) -> None:
    seen: list[object] = []
    async with Client(archive(seen)) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource(uri)
        assert raised.value.error.code == -32602
        assert "Unknown resource" in raised.value.error.message
    assert seen == []


async def test_dotdot_is_checked_per_component_not_as_a_substring() -> None:
    async with Client(archive([])) as client:
        assert await read_text(client, "scans://v1.0..v2.0/diff") == "scan v1.0..v2.0/diff"
    assert not contains_path_traversal("HEAD~3..HEAD")
    assert contains_path_traversal("a/../../b")


async def test_safe_join_serves_inside_the_base_and_refuses_an_escape(tmp_path: Path) -> None:
    root = tmp_path / "scans"
    (root / "2024").mkdir(parents=True)
    (root / "2024" / "p1.txt").write_text("page one")
    (tmp_path / "secret.txt").write_text("no")
    (root / "link").symlink_to(tmp_path / "secret.txt")
    mcp = MCPServer("Archive")

    @mcp.resource("scans://{+path}")
    def scan(path: str) -> str:
        return safe_join(root, path).read_text()

    async with Client(mcp) as client:
        assert await read_text(client, "scans://2024/p1.txt") == "page one"
        with pytest.raises(MCPError):
            await client.read_resource("scans://link")  # a symlink out of the base
    from mcp.shared.path_security import PathEscapeError

    with pytest.raises(PathEscapeError):
        safe_join(root, "../secret.txt")


async def test_exempt_params_and_a_server_wide_policy_relax_the_checks() -> None:
    mcp = MCPServer("Archive")

    @mcp.resource("imports://from/{+source}", security=ResourceSecurity(exempt_params={"source"}))
    def from_source(source: str) -> str:
        return f"import {source}"

    @mcp.resource("imports://strict/{+source}")
    def strict(source: str) -> str:
        return source

    relaxed = MCPServer("Relaxed", resource_security=ResourceSecurity(reject_path_traversal=False))

    @relaxed.resource("imports://rel/{+source}")
    def relative(source: str) -> str:
        return f"rel {source}"

    async with Client(mcp) as client:
        assert await read_text(client, "imports://from//var/data.csv") == "import /var/data.csv"
        with pytest.raises(MCPError):
            await client.read_resource("imports://strict//var/data.csv")
    async with Client(relaxed) as client:
        assert await read_text(client, "imports://rel/../sibling") == "rel ../sibling"
    defaults = ResourceSecurity()
    assert (defaults.reject_path_traversal, defaults.reject_absolute_paths, defaults.reject_null_bytes,
            set(defaults.exempt_params)) == (True, True, True, set())


def lowlevel_archive() -> Server:
    templates = {"scans": UriTemplate.parse("scans://{+path}"), "records": UriTemplate.parse("records://{code}")}
    scans = {"2024/p1.txt": "page one"}

    async def read_resource(ctx: ServerRequestContext, params: ReadResourceRequestParams) -> ReadResourceResult:
        if (found := templates["scans"].match(params.uri)) is not None:
            path = str(found["path"])
            if contains_path_traversal(path) or is_absolute_path(path):
                raise ValueError("refused")
            return ReadResourceResult(contents=[TextResourceContents(uri=params.uri, text=scans[path])])
        if (found := templates["records"].match(params.uri)) is not None:
            return ReadResourceResult(contents=[TextResourceContents(uri=params.uri, text=f"record {found['code']}")])
        raise ValueError(f"Unknown resource: {params.uri}")

    async def list_templates(ctx: ServerRequestContext, params: PaginatedRequestParams | None,
                             ) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(resource_templates=[
            ResourceTemplate(name=name, uri_template=str(template)) for name, template in templates.items()])

    return Server("Archive", on_read_resource=read_resource, on_list_resource_templates=list_templates)


async def test_the_low_level_server_routes_with_the_engine_and_checks_paths_itself() -> None:
    async with Client(lowlevel_archive()) as client:
        listed = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in listed] == ["scans://{+path}", "records://{code}"]
        assert await read_text(client, "scans://2024/p1.txt") == "page one"
        assert await read_text(client, "records://A-1") == "record A-1"
        for uri in ("scans://../etc/passwd", "nothing://here"):
            with pytest.raises(MCPError):
                await client.read_resource(uri)


def test_match_decodes_and_returns_none_on_a_miss_and_str_round_trips() -> None:
    template = UriTemplate.parse("scans://{+path}")
    assert template.match("scans://a%20b/c.txt") == {"path": "a b/c.txt"}
    assert template.match("records://x") is None
    assert str(template) == "scans://{+path}"


async def test_templates_over_streamable_http() -> None:
    with serve_http(lambda: archive([]).streamable_http_app()) as base:
        async with Client(f"{base}/mcp") as client:
            assert await read_text(client, "letters://L2?page=4") == "L2 page=4 order=oldest"
            assert await read_text(client, "boxes://shelf/a/b") == "a/b"
            with pytest.raises(MCPError):
                await client.read_resource("scans://../etc/passwd")
