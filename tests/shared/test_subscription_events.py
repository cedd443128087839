"""The listen-stream event vocabulary has one home (`mcp.shared.subscriptions`) that the server and
client modules re-export, as in the official SDK."""

from __future__ import annotations

import mcp.client.subscriptions as client_subs
import mcp.server.subscriptions as server_subs
import mcp.shared.subscriptions as shared_subs
from mcp.types import SubscriptionFilter

EVENTS = ("ToolsListChanged", "PromptsListChanged", "ResourcesListChanged", "ResourceUpdated")


def test_server_and_client_events_are_the_shared_classes() -> None:
    for name in EVENTS:
        assert getattr(server_subs, name) is getattr(shared_subs, name) is getattr(client_subs, name)
    assert server_subs.SUBSCRIPTION_ID_META_KEY == client_subs.SUBSCRIPTION_ID_META_KEY == "io.modelcontextprotocol/subscriptionId"


def test_a_wire_frame_maps_to_its_event_and_anything_else_to_none() -> None:
    assert shared_subs.event_from_wire("notifications/tools/list_changed", None) == shared_subs.ToolsListChanged()
    assert shared_subs.event_from_wire("notifications/resources/updated", {"uri": "file:///a"}) == \
        shared_subs.ResourceUpdated(uri="file:///a")
    assert shared_subs.event_from_wire("notifications/resources/updated", {"uri": 7}) is None
    assert shared_subs.event_from_wire("notifications/message", {"level": "info"}) is None
    assert {
        "notifications/tools/list_changed", "notifications/prompts/list_changed",
        "notifications/resources/list_changed", "notifications/resources/updated"} == shared_subs.LISTEN_STREAM_METHODS


def test_only_what_the_filter_acknowledged_matches() -> None:
    honored = SubscriptionFilter(tools_list_changed=True)
    uris = frozenset({"file:///watched"})
    assert shared_subs.event_matches(honored, uris, shared_subs.ToolsListChanged())
    assert not shared_subs.event_matches(honored, uris, shared_subs.PromptsListChanged())
    assert shared_subs.event_matches(honored, uris, shared_subs.ResourceUpdated(uri="file:///watched"))
    assert not shared_subs.event_matches(honored, uris, shared_subs.ResourceUpdated(uri="file:///other"))


def test_an_event_becomes_its_stamped_notification() -> None:
    meta = {shared_subs.SUBSCRIPTION_ID_META_KEY: 3}
    updated = shared_subs.event_to_notification(shared_subs.ResourceUpdated(uri="file:///a"), meta)
    assert updated.model_dump(by_alias=True, exclude_none=True) == {
        "method": "notifications/resources/updated", "params": {"_meta": meta, "uri": "file:///a"}}
    changed = shared_subs.event_to_notification(shared_subs.PromptsListChanged(), meta)
    assert changed.model_dump(by_alias=True, exclude_none=True) == {
        "method": "notifications/prompts/list_changed", "params": {"_meta": meta}}


def test_the_extension_identifier_check_is_one_object_at_every_official_path() -> None:
    import mcp.server.extension
    import mcp.shared.extension

    assert mcp.shared.extension.validate_extension_identifier is mcp.server.extension.validate_extension_identifier


def test_the_low_level_context_is_a_base_context() -> None:
    from mcp.server.context import Context
    from mcp.shared.context import BaseContext

    assert issubclass(Context, BaseContext)
