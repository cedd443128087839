"""Completion: argument autocompletion for prompts and resource templates (`completion/complete`)."""

from __future__ import annotations

from typing import Literal

from mcp.types._base import MCPModel
from mcp.types._common import RequestParams, Result, ResultType
from mcp.types._messages import Request

__all__ = [
    "CompleteRequest",
    "CompleteRequestParams",
    "CompleteResult",
    "Completion",
    "CompletionArgument",
    "CompletionContext",
    "PromptReference",
    "ResourceReference",
    "ResourceTemplateReference",
]


class PromptReference(MCPModel):
    type: Literal["ref/prompt"] = "ref/prompt"
    name: str
    title: str | None = None


class ResourceTemplateReference(MCPModel):
    type: Literal["ref/resource"] = "ref/resource"
    uri: str
    """A resource URI or URI template."""


ResourceReference = ResourceTemplateReference
"""The 2024-11-05 / 2025-03-26 schema's name for `ResourceTemplateReference`."""


class CompletionArgument(MCPModel):
    name: str
    value: str


class CompletionContext(MCPModel):
    arguments: dict[str, str] | None = None
    """Already-resolved arguments of the same prompt or template."""


class CompleteRequestParams(RequestParams):
    ref: ResourceTemplateReference | PromptReference
    argument: CompletionArgument
    context: CompletionContext | None = None


class CompleteRequest(Request[CompleteRequestParams, Literal["completion/complete"]]):
    method: Literal["completion/complete"] = "completion/complete"
    params: CompleteRequestParams


class Completion(MCPModel):
    values: list[str]
    """The spec allows at most 100 values per response (not enforced here, as in the official SDK)."""
    total: int | None = None
    has_more: bool | None = None


class CompleteResult(Result):
    completion: Completion
    result_type: ResultType = "complete"
