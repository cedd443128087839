"""The resource registry (`ResourceManager`), resource templates and the ready-made `Resource`
classes, checked at the manager level against the Resources and URI-templates pages."""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resources import (
    DEFAULT_RESOURCE_SECURITY,
    BinaryResource,
    DirectoryResource,
    FileResource,
    FunctionResource,
    HttpResource,
    ReadResourceContents,
    Resource,
    ResourceManager,
    ResourceSecurity,
    ResourceSecurityError,
    ResourceTemplate,
    TextResource,
)
from mcp.shared.exceptions import (
    InvalidUriTemplate,
    MCPError,
    PathEscapeError,
    ResourceError,
    ResourceNotFoundError,
    UnexpectedResourceError,
)
from mcp.types import Annotations, Icon, InputRequiredResult


async def _read_one(manager: ResourceManager, uri: str, context: Any = None) -> ReadResourceContents:
    contents = await manager.read(uri, context)
    assert isinstance(contents, list) and len(contents) == 1  # pyright: ignore[reportUnknownArgumentType]
    return contents[0]  # pyright: ignore[reportUnknownVariableType]


# -- static resources ------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_function_on_a_fixed_uri_is_a_static_resource_named_after_the_function() -> None:
    manager = ResourceManager()

    def get_config() -> str:
        """The active shop configuration."""
        return "theme=dark\nlanguage=en"

    assert manager.resource_decorator_target(get_config, "config://app") is get_config
    [listed] = manager.list_resources()
    assert listed.model_dump(by_alias=True, exclude_none=True) == {
        "name": "get_config",
        "uri": "config://app",
        "description": "The active shop configuration.",
        "mimeType": "text/plain",
    }
    assert manager.list_templates() == []
    assert await manager.read("config://app") == [ReadResourceContents("theme=dark\nlanguage=en", "text/plain", None)]


@pytest.mark.anyio
async def test_listing_never_calls_the_function() -> None:
    manager = ResourceManager()
    calls: list[str] = []

    def tracked() -> str:
        calls.append("read")
        return "x"

    manager.resource_decorator_target(tracked, "data://tracked")
    manager.list_resources()
    assert calls == []
    await manager.read("data://tracked")
    assert calls == ["read"]


@pytest.mark.anyio
async def test_name_title_description_and_metadata_can_be_given_explicitly() -> None:
    manager = ResourceManager()
    icon = Icon(src="https://example.com/i.png", mime_type="image/png")

    def fn() -> str:
        """Docstring."""
        return "x"

    manager.resource_decorator_target(
        fn, "data://x", name="custom", title="Custom", description="Explicit.", mime_type="text/markdown",
        icons=[icon], annotations=Annotations(priority=0.5), meta={"k": "v"},
    )
    [listed] = manager.list_resources()
    assert (listed.name, listed.title, listed.description, listed.mime_type) == (
        "custom", "Custom", "Explicit.", "text/markdown"
    )
    assert listed.icons == [icon]
    assert listed.annotations == Annotations(priority=0.5)
    assert listed.meta == {"k": "v"}
    assert await manager.read("data://x") == [ReadResourceContents("x", "text/markdown", {"k": "v"})]


@pytest.mark.anyio
async def test_return_values_map_str_to_text_bytes_to_blob_and_anything_else_to_json() -> None:
    manager = ResourceManager()

    class Stats(BaseModel):
        books: int

    @dataclass
    class Point:
        x: int

    values: dict[str, Any] = {
        "text": "plain",
        "blob": b"\x89PNG",
        "dict": {"books": 1204, "authors": 391},
        "list": [1, "two"],
        "model": Stats(books=3),
        "dataclass": Point(x=1),
        "number": 42,
    }
    def returning(value: Any) -> Any:
        return lambda: value

    for key, value in values.items():
        manager.resource_decorator_target(returning(value), f"data://{key}", name=key)

    assert (await _read_one(manager, "data://text")).content == "plain"
    assert (await _read_one(manager, "data://blob")).content == b"\x89PNG"
    assert (await _read_one(manager, "data://dict")).content == '{\n  "books": 1204,\n  "authors": 391\n}'
    assert json.loads((await _read_one(manager, "data://list")).content) == [1, "two"]
    assert json.loads((await _read_one(manager, "data://model")).content) == {"books": 3}
    assert json.loads((await _read_one(manager, "data://dataclass")).content) == {"x": 1}
    assert (await _read_one(manager, "data://number")).content == "42"


@pytest.mark.anyio
async def test_the_mime_type_is_never_guessed_from_the_content() -> None:
    manager = ResourceManager()
    manager.resource_decorator_target(lambda: {"a": 1}, "data://stats", name="stats")
    manager.resource_decorator_target(lambda: b"\x00", "data://bin", name="bin")
    assert [r.mime_type for r in manager.list_resources()] == ["text/plain", "text/plain"]
    assert (await _read_one(manager, "data://stats")).mime_type == "text/plain"


@pytest.mark.anyio
async def test_sync_functions_run_on_a_worker_thread_and_async_ones_on_the_loop() -> None:
    manager = ResourceManager()
    threads: dict[str, int] = {}

    def sync_fn() -> str:
        threads["sync"] = threading.get_ident()
        return "s"

    async def async_fn() -> str:
        threads["async"] = threading.get_ident()
        return "a"

    manager.resource_decorator_target(sync_fn, "data://sync")
    manager.resource_decorator_target(async_fn, "data://async")
    assert (await _read_one(manager, "data://sync")).content == "s"
    assert (await _read_one(manager, "data://async")).content == "a"
    assert threads["async"] == threading.get_ident()
    assert threads["sync"] != threading.get_ident()


def test_a_static_resource_function_may_not_take_parameters() -> None:
    manager = ResourceManager()

    def fn(user_id: str) -> str:
        return user_id

    with pytest.raises(ValueError, match=r"no URI template variables, but the handler declares parameters \{'user_id'\}"):
        manager.resource_decorator_target(fn, "users://me")


def test_a_static_resource_function_may_not_take_a_context() -> None:
    manager = ResourceManager()

    def fn(ctx: Context) -> str:
        return "x"

    with pytest.raises(ValueError, match="Context injection for static resources is not supported"):
        manager.resource_decorator_target(fn, "config://app")


def test_a_lambda_needs_a_name() -> None:
    with pytest.raises(ValueError, match="You must provide a name for lambda functions"):
        ResourceManager().resource_decorator_target(lambda: "x", "data://x")


# -- templates ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_placeholder_makes_a_template_listed_separately_and_read_with_the_concrete_uri() -> None:
    manager = ResourceManager()

    def get_user_profile(user_id: str) -> str:
        """A customer's profile."""
        return f"User {user_id}: 12 orders since 2021."

    manager.resource_decorator_target(get_user_profile, "users://{user_id}/profile")
    assert manager.list_resources() == []
    [listed] = manager.list_templates()
    assert listed.model_dump(by_alias=True, exclude_none=True) == {
        "name": "get_user_profile",
        "uriTemplate": "users://{user_id}/profile",
        "description": "A customer's profile.",
        "mimeType": "text/plain",
    }
    assert (await _read_one(manager, "users://42/profile")).content == "User 42: 12 orders since 2021."
    assert (await _read_one(manager, "users://ada/profile")).content == "User ada: 12 orders since 2021."


def test_placeholders_and_parameters_must_agree() -> None:
    def get_user_profile(user: str) -> str:
        return user

    with pytest.raises(ValueError) as excinfo:
        ResourceManager().resource_decorator_target(get_user_profile, "users://{user_id}/profile")
    assert str(excinfo.value) == "Mismatch between URI parameters {'user_id'} and function parameters {'user'}"


def test_a_malformed_template_is_rejected_at_decoration() -> None:
    def fn(path: str, ext: str) -> str:
        return path

    with pytest.raises(InvalidUriTemplate, match="adjacent with no literal separator"):
        ResourceManager().resource_decorator_target(fn, "manuals://{+path}{ext}")


def test_a_query_parameter_needs_a_default() -> None:
    def reviews(isbn: str, limit: int) -> str:
        return isbn

    with pytest.raises(ValueError, match=r"query parameter\(s\) \['limit'\] have no default value"):
        ResourceManager().resource_decorator_target(reviews, "reviews://{isbn}{?limit}")


@pytest.mark.anyio
async def test_values_are_converted_to_the_parameter_types() -> None:
    manager = ResourceManager()

    def get_order(order_id: int) -> str:
        return f"next={order_id + 1}"

    manager.resource_decorator_target(get_order, "orders://{order_id}")
    assert (await _read_one(manager, "orders://12345")).content == "next=12346"


@pytest.mark.anyio
async def test_a_value_that_does_not_convert_fails_the_read_with_a_resource_error() -> None:
    manager = ResourceManager()

    def get_order(order_id: int) -> str:
        return str(order_id)

    manager.resource_decorator_target(get_order, "orders://{order_id}")
    with pytest.raises(UnexpectedResourceError) as excinfo:
        await manager.read("orders://abc")
    assert str(excinfo.value) == "Error creating resource from template orders://abc"
    assert not isinstance(excinfo.value, ResourceNotFoundError)
    assert isinstance(excinfo.value.__cause__, ValidationError)


@pytest.mark.anyio
async def test_omitted_query_parameters_fall_through_to_the_defaults() -> None:
    manager = ResourceManager()

    def reviews(isbn: str, limit: int = 10, sort: str = "newest") -> str:
        return f"{isbn} {limit} {sort}"

    manager.resource_decorator_target(reviews, "reviews://{isbn}{?limit,sort}")
    assert (await _read_one(manager, "reviews://978")).content == "978 10 newest"
    assert (await _read_one(manager, "reviews://978?sort=top")).content == "978 10 top"
    assert (await _read_one(manager, "reviews://978?limit=3&extra=1")).content == "978 3 newest"


@pytest.mark.anyio
async def test_multi_segment_and_list_placeholders() -> None:
    manager = ResourceManager()

    def read_manual(path: str) -> str:
        return path

    def browse_shelf(path: list[str]) -> list[str]:
        return path

    manager.resource_decorator_target(read_manual, "manuals://{+path}")
    manager.resource_decorator_target(browse_shelf, "shelves://browse{/path*}")
    assert (await _read_one(manager, "manuals://printing/setup.md")).content == "printing/setup.md"
    content = (await _read_one(manager, "shelves://browse/fiction/sci-fi")).content
    assert json.loads(content) == ["fiction", "sci-fi"]


@pytest.mark.anyio
async def test_a_context_parameter_is_injected_and_is_not_a_uri_parameter() -> None:
    manager = ResourceManager()
    seen: list[Any] = []

    async def get_doc(doc_id: str, ctx: Context) -> str:
        seen.append(ctx)
        return doc_id

    manager.resource_decorator_target(get_doc, "docs://{doc_id}")
    marker = Context()
    assert (await _read_one(manager, "docs://7", marker)).content == "7"
    assert seen == [marker]


@pytest.mark.anyio
async def test_a_parameter_shadowing_a_pydantic_attribute_still_works() -> None:
    manager = ResourceManager()

    def get_schema(schema: str) -> str:
        return schema

    manager.resource_decorator_target(get_schema, "schemas://{schema}")
    assert (await _read_one(manager, "schemas://orders")).content == "orders"


@pytest.mark.anyio
async def test_template_metadata_and_mime_type_reach_the_listing_and_the_contents() -> None:
    manager = ResourceManager()

    def cover(isbn: str) -> bytes:
        return b"\x89PNG" + isbn.encode()

    manager.resource_decorator_target(
        cover, "covers://{isbn}", title="Cover", mime_type="image/png", meta={"k": 1},
        icons=[Icon(src="https://example.com/c.png")], annotations=Annotations(audience=["user"]),
    )
    [listed] = manager.list_templates()
    assert (listed.title, listed.mime_type, listed.meta) == ("Cover", "image/png", {"k": 1})
    assert listed.icons == [Icon(src="https://example.com/c.png")]
    assert listed.annotations == Annotations(audience=["user"])
    assert await manager.read("covers://1") == [ReadResourceContents(b"\x89PNG1", "image/png", {"k": 1})]


@pytest.mark.anyio
async def test_static_resources_are_tried_before_templates_and_templates_in_order() -> None:
    manager = ResourceManager()
    manager.add_resource(TextResource(uri="items://special", text="static"))

    def first(item: str) -> str:
        return f"first {item}"

    def second(item: str) -> str:
        return f"second {item}"

    manager.resource_decorator_target(first, "items://{item}")
    manager.resource_decorator_target(second, "items://{item}/")
    manager.add_template(ResourceTemplate.from_function(second, "items://{+item}"))
    assert (await _read_one(manager, "items://special")).content == "static"
    assert (await _read_one(manager, "items://a")).content == "first a"
    assert (await _read_one(manager, "items://a/b")).content == "second a/b"
    assert [t.uri_template for t in manager.list_templates()] == ["items://{item}", "items://{item}/", "items://{+item}"]


@pytest.mark.anyio
async def test_a_template_function_may_return_an_input_required_result_unchanged() -> None:
    manager = ResourceManager()
    asked = InputRequiredResult(request_state="s")

    def ask(item: str) -> InputRequiredResult:
        return asked

    manager.resource_decorator_target(ask, "ask://{item}")
    assert await manager.read("ask://x") is asked


@pytest.mark.anyio
async def test_template_read_and_matches_work_on_their_own() -> None:
    def get(name: str) -> str:
        return name.upper()

    template = ResourceTemplate.from_function(get, "files://{name}")
    assert template.matches("files://abc") == {"name": "abc"}
    assert template.matches("files://..") is None
    assert template.matches("other://abc") is None
    assert await template.read("files://abc") == "ABC"
    with pytest.raises(ResourceNotFoundError, match=re.escape("Unknown resource: files://..")):
        await template.read("files://..")
    assert repr(template) == "ResourceTemplate(uri_template='files://{name}', name='get')"


# -- not found and failures --------------------------------------------------------------------


@pytest.mark.anyio
async def test_an_unknown_uri_raises_resource_not_found() -> None:
    manager = ResourceManager()
    manager.resource_decorator_target(lambda: "x", "config://app", name="app")
    with pytest.raises(ResourceNotFoundError) as excinfo:
        await manager.read("config://nope")
    assert str(excinfo.value) == "Unknown resource: config://nope"


@pytest.mark.anyio
async def test_a_resource_function_crash_becomes_an_unexpected_resource_error_naming_only_the_uri() -> None:
    manager = ResourceManager()

    def broken() -> str:
        raise RuntimeError("disk on fire")

    manager.resource_decorator_target(broken, "data://broken")
    with pytest.raises(UnexpectedResourceError) as excinfo:
        await manager.read("data://broken")
    assert str(excinfo.value) == "Error reading resource data://broken"
    assert isinstance(excinfo.value, ResourceError)
    assert isinstance(excinfo.value.__cause__, RuntimeError) and str(excinfo.value.__cause__) == "disk on fire"


@pytest.mark.anyio
async def test_resource_not_found_and_mcp_errors_raised_by_a_function_pass_through_unchanged() -> None:
    manager = ResourceManager()
    missing = ResourceNotFoundError("No book titled 'Nothing' in the catalog.")
    protocol = MCPError(-32602, "bad")

    def book(title: str) -> str:
        raise missing if title == "Nothing" else protocol

    manager.resource_decorator_target(book, "books://{title}")
    with pytest.raises(ResourceNotFoundError) as not_found:
        await manager.read("books://Nothing")
    assert not_found.value is missing
    with pytest.raises(MCPError) as mcp_error:
        await manager.read("books://Other")
    assert mcp_error.value is protocol


@pytest.mark.anyio
async def test_a_path_escape_from_safe_join_surfaces_as_a_resource_error(tmp_path: Path) -> None:
    from mcp.shared.path_security import safe_join

    manager = ResourceManager(resource_security=ResourceSecurity(reject_path_traversal=False))

    def read_doc(path: str) -> str:
        return safe_join(tmp_path, path).read_text()

    manager.resource_decorator_target(read_doc, "docs://{+path}")
    with pytest.raises(UnexpectedResourceError, match=r"^Error creating resource from template docs://\.\./secret$") as excinfo:
        await manager.read("docs://../secret")
    assert isinstance(excinfo.value.__cause__, PathEscapeError)
    assert "escapes the base directory" in str(excinfo.value.__cause__)


# -- path safety -------------------------------------------------------------------------------


def _manual_manager(**kwargs: Any) -> tuple[ResourceManager, list[str]]:
    manager = ResourceManager(**kwargs)
    calls: list[str] = []

    def read_manual(path: str) -> str:
        calls.append(path)
        return path

    manager.resource_decorator_target(read_manual, "manuals://{+path}")
    return manager, calls


@pytest.mark.anyio
@pytest.mark.parametrize(
    "uri",
    [
        "manuals://../etc/passwd",
        "manuals://..%2Fetc",
        "manuals://%2E%2E/etc",
        "manuals://..%5Cetc",
        "manuals://a%00b",
        "manuals:///etc/passwd",
        "manuals://%2Fetc%2Fpasswd",
        "manuals://C:%5CWindows",
        "manuals://C:foo",
        "manuals://a/../../b",
    ],
)
async def test_unsafe_values_are_rejected_like_an_unknown_uri_before_the_function_runs(uri: str) -> None:
    manager, calls = _manual_manager()
    with pytest.raises(ResourceNotFoundError) as excinfo:
        await manager.read(uri)
    assert str(excinfo.value) == f"Unknown resource: {uri}"
    assert calls == []


@pytest.mark.anyio
@pytest.mark.parametrize("value", ["a/../b", "v1.0..v2.0", "HEAD~3..HEAD", "printing/setup.md"])
async def test_dot_dot_that_is_not_an_escaping_component_is_allowed(value: str) -> None:
    manager, calls = _manual_manager()
    assert (await _read_one(manager, f"manuals://{value}")).content == value
    assert calls == [value]


@pytest.mark.anyio
async def test_a_rejected_value_stops_matching_instead_of_falling_through_to_later_templates() -> None:
    manager, _ = _manual_manager()
    fallback_calls: list[str] = []

    def fallback(rest: str) -> str:
        fallback_calls.append(rest)
        return rest

    manager.resource_decorator_target(fallback, "manuals://{+rest}/", security=ResourceSecurity(exempt_params={"rest"}))
    manager.resource_decorator_target(fallback, "{+rest}", name="any", security=ResourceSecurity(exempt_params={"rest"}))
    with pytest.raises(ResourceNotFoundError):
        await manager.read("manuals://../etc/passwd")
    assert fallback_calls == []


@pytest.mark.anyio
async def test_checks_apply_to_every_parameter_including_query_and_list_values() -> None:
    manager = ResourceManager()

    def browse(path: list[str], q: str = "") -> str:
        return "/".join(path) + q

    manager.resource_decorator_target(browse, "shelves://browse{/path*}{?q}")
    assert (await _read_one(manager, "shelves://browse/a/b?q=x")).content == "a/bx"
    with pytest.raises(ResourceNotFoundError):
        await manager.read("shelves://browse/a/..?q=x")  # "..": a whole escaping component
    with pytest.raises(ResourceNotFoundError):
        await manager.read("shelves://browse/a?q=/etc")


@pytest.mark.anyio
async def test_an_exempt_parameter_skips_the_checks_for_that_resource_only() -> None:
    manager = ResourceManager()

    def import_catalog(source: str) -> str:
        return source

    def read_file(name: str) -> str:
        return name

    manager.resource_decorator_target(
        import_catalog, "catalog://import/{+source}", security=ResourceSecurity(exempt_params={"source"})
    )
    manager.resource_decorator_target(read_file, "files://{+name}")
    assert (await _read_one(manager, "catalog://import//srv/books.csv")).content == "/srv/books.csv"
    with pytest.raises(ResourceNotFoundError):
        await manager.read("files:///srv/books.csv")


@pytest.mark.anyio
async def test_a_server_wide_policy_applies_to_templates_without_their_own() -> None:
    relaxed = ResourceSecurity(reject_path_traversal=False)
    manager, calls = _manual_manager(resource_security=relaxed)
    assert (await _read_one(manager, "manuals://../sibling")).content == "../sibling"
    with pytest.raises(ResourceNotFoundError):
        await manager.read("manuals:///etc/passwd")
    assert calls == ["../sibling"]


@pytest.mark.anyio
async def test_null_byte_checks_can_be_turned_off() -> None:
    manager, _ = _manual_manager(resource_security=ResourceSecurity(reject_null_bytes=False))
    assert (await _read_one(manager, "manuals://a%00b")).content == "a\x00b"


def test_the_default_policy_enables_every_check() -> None:
    assert ResourceSecurity(
        reject_path_traversal=True, reject_absolute_paths=True, reject_null_bytes=True, exempt_params=set()
    ) == DEFAULT_RESOURCE_SECURITY
    assert not DEFAULT_RESOURCE_SECURITY.exempt_params


def test_validate_names_the_rejected_parameter() -> None:
    with pytest.raises(ResourceSecurityError) as excinfo:
        DEFAULT_RESOURCE_SECURITY.validate({"ok": "fine", "path": ["a", "../x"]})
    assert excinfo.value.param == "path"
    assert isinstance(excinfo.value, PathEscapeError)
    assert DEFAULT_RESOURCE_SECURITY.violation("path", "x:y") == "looks like an absolute path"
    assert ResourceSecurity(exempt_params={"path"}).violation("path", "/etc") is None


# -- registry housekeeping ---------------------------------------------------------------------


def test_duplicate_resources_keep_the_first_and_warn(caplog: pytest.LogCaptureFixture) -> None:
    manager = ResourceManager()
    first = TextResource(uri="data://x", text="first")
    with caplog.at_level(logging.WARNING, logger="mcp.server.resources"):
        assert manager.add_resource(first) is first
        assert manager.add_resource(TextResource(uri="data://x", text="second")) is first
        manager.resource_decorator_target(lambda item: item, "items://{item}", name="a")
        manager.resource_decorator_target(lambda item: item, "items://{item}", name="b")
    assert [r.name for r in manager.list_templates()] == ["a"]
    assert [r.message for r in caplog.records] == ["Resource already exists: data://x", "Resource already exists: items://{item}"]


def test_duplicate_warnings_can_be_disabled(caplog: pytest.LogCaptureFixture) -> None:
    manager = ResourceManager(warn_on_duplicate_resources=False)
    with caplog.at_level(logging.WARNING, logger="mcp.server.resources"):
        manager.add_resource(TextResource(uri="data://x", text="first"))
        manager.add_resource(TextResource(uri="data://x", text="second"))
    assert caplog.records == []
    assert len(manager.list_resources()) == 1


def test_resources_and_templates_are_listed_in_registration_order() -> None:
    manager = ResourceManager()
    for uri in ["z://1", "a://2", "m://3"]:
        manager.add_resource(TextResource(uri=uri, text=uri))
    assert [r.uri for r in manager.list_resources()] == ["z://1", "a://2", "m://3"]
    assert [r.uri for r in manager.resources] == ["z://1", "a://2", "m://3"]


@pytest.mark.anyio
async def test_remove_resource_unregisters_a_static_resource_or_a_template() -> None:
    manager = ResourceManager()
    manager.add_resource(TextResource(uri="data://x", text="x"))
    manager.resource_decorator_target(lambda item: item, "items://{item}", name="items")
    assert (await manager.get_resource("data://x")).uri == "data://x"
    assert manager.get_template("items://{item}") is not None
    manager.remove_resource("data://x")
    manager.remove_resource("items://{item}")
    assert manager.list_resources() == [] and manager.list_templates() == []
    with pytest.raises(ResourceNotFoundError):
        await manager.read("data://x")
    with pytest.raises(ValueError, match="Unknown resource: data://x"):
        manager.remove_resource("data://x")


# -- the Resource classes ----------------------------------------------------------------------


def test_resource_classes_reject_unknown_fields_and_uris_without_a_scheme() -> None:
    with pytest.raises(ValidationError, match="extra"):
        TextResource(uri="data://x", text="x", colour="blue")  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="scheme"):
        TextResource(uri="no-scheme", text="x")
    with pytest.raises(TypeError):
        Resource(uri="data://x")  # type: ignore[abstract]


def test_the_name_defaults_to_the_uri_and_the_mime_type_to_text_plain() -> None:
    resource = TextResource(uri="data://x", text="x", mime_type=None)  # type: ignore[arg-type]
    assert (resource.name, resource.mime_type) == ("data://x", "text/plain")
    assert resource.to_wire().model_dump(by_alias=True, exclude_none=True) == {
        "name": "data://x", "uri": "data://x", "mimeType": "text/plain"
    }


@pytest.mark.anyio
async def test_text_and_binary_resources_return_their_content() -> None:
    manager = ResourceManager()
    manager.add_resource(TextResource(uri="data://t", text="hello", description="Greeting."))
    manager.add_resource(BinaryResource(uri="data://b", data=b"\x00\x01", mime_type="application/octet-stream"))
    assert await manager.read("data://t") == [ReadResourceContents("hello", "text/plain", None)]
    assert await manager.read("data://b") == [ReadResourceContents(b"\x00\x01", "application/octet-stream", None)]
    assert base64.b64encode(await BinaryResource(uri="data://b", data=b"\xff").read()) == b"/w=="


@pytest.mark.anyio
async def test_function_resource_from_function_and_direct_construction() -> None:
    async def fetch() -> dict[str, int]:
        """Counts."""
        return {"n": 1}

    resource = FunctionResource.from_function(fetch, "data://counts", mime_type="application/json")
    assert (resource.name, resource.description, resource.mime_type) == ("fetch", "Counts.", "application/json")
    assert await resource.read() == '{\n  "n": 1\n}'
    direct = FunctionResource(uri="data://d", name="d", fn=lambda: "direct")
    assert await direct.read() == "direct"
    assert "fn" not in direct.model_dump()


@pytest.mark.anyio
async def test_file_resource_reads_text_or_bytes(tmp_path: Path) -> None:
    text_file = tmp_path / "notes.txt"
    text_file.write_text("héllo", encoding="utf-8")
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café".encode("latin-1"))
    image = tmp_path / "pixel.png"
    image.write_bytes(b"\x89PNG\r\n")

    assert await FileResource(uri="file:///notes", path=text_file).read() == "héllo"
    assert await FileResource(uri="file:///latin", path=latin, encoding="latin-1").read() == "café"
    as_bytes = FileResource(uri="file:///notes", path=text_file, is_binary=True)
    assert await as_bytes.read() == "héllo".encode()
    png = FileResource(uri="file:///pixel", path=image, mime_type="image/png")
    assert png.is_binary
    assert await png.read() == b"\x89PNG\r\n"
    assert not FileResource(uri="file:///j", path=text_file, mime_type="application/json").is_binary


def test_file_resource_needs_an_absolute_path() -> None:
    with pytest.raises(ValidationError, match="Path must be absolute"):
        FileResource(uri="file:///x", path=Path("relative/notes.txt"))


@pytest.mark.anyio
async def test_a_missing_file_fails_the_read_with_a_resource_error(tmp_path: Path) -> None:
    manager = ResourceManager()
    manager.add_resource(FileResource(uri="file:///gone", path=tmp_path / "gone.txt"))
    with pytest.raises(UnexpectedResourceError) as excinfo:
        await manager.read("file:///gone")
    assert str(excinfo.value) == "Error reading resource file:///gone"
    assert isinstance(excinfo.value.__cause__, FileNotFoundError)


@pytest.mark.anyio
async def test_directory_resource_lists_files_as_json(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("b")
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.md").write_text("c")

    flat = DirectoryResource(uri="dir://docs", path=tmp_path)
    assert flat.mime_type == "application/json"
    assert json.loads(await flat.read()) == ["a.txt", "b.md"]
    recursive = DirectoryResource(uri="dir://docs", path=tmp_path, recursive=True)
    assert json.loads(await recursive.read()) == ["a.txt", "b.md", "sub/c.md"]
    markdown = DirectoryResource(uri="dir://docs", path=tmp_path, recursive=True, pattern="*.md")
    assert json.loads(await markdown.read()) == ["b.md", "sub/c.md"]
    assert markdown.list_files() == [tmp_path / "b.md", tmp_path / "sub" / "c.md"]


@pytest.mark.anyio
async def test_directory_resource_errors(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="Path must be absolute"):
        DirectoryResource(uri="dir://x", path="relative")
    (tmp_path / "file.txt").write_text("x")
    manager = ResourceManager()
    manager.add_resource(DirectoryResource(uri="dir://file", path=tmp_path / "file.txt"))
    manager.add_resource(DirectoryResource(uri="dir://gone", path=tmp_path / "gone"))
    with pytest.raises(UnexpectedResourceError, match=r"^Error reading resource dir://file$") as not_a_dir:
        await manager.read("dir://file")
    assert "Not a directory" in str(not_a_dir.value.__cause__)
    with pytest.raises(UnexpectedResourceError, match=r"^Error reading resource dir://gone$") as gone:
        await manager.read("dir://gone")
    assert "does not exist" in str(gone.value.__cause__)


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/missing":
            self.send_error(404)
            return
        body = b'{"ok": true}' if self.path == "/data.json" else b"\x89PNG"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def http_base() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.anyio
async def test_http_resource_fetches_on_read(http_base: str) -> None:
    text = HttpResource(uri="remote://data", url=f"{http_base}/data.json", mime_type="application/json")
    assert await text.read() == '{"ok": true}'
    binary = HttpResource(uri="remote://img", url=f"{http_base}/img.png", mime_type="image/png")
    assert await binary.read() == b"\x89PNG"


@pytest.mark.anyio
async def test_an_http_error_fails_the_read_with_a_resource_error(http_base: str) -> None:
    manager = ResourceManager()
    manager.add_resource(HttpResource(uri="remote://missing", url=f"{http_base}/missing"))
    with pytest.raises(UnexpectedResourceError, match=r"^Error reading resource remote://missing$") as excinfo:
        await manager.read("remote://missing")
    assert "404" in str(excinfo.value.__cause__)
