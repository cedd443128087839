"""The registry of an `MCPServer`'s prompts: registration order, duplicates, rendering by name."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.prompts.base import Message, Prompt, prompt_result

if TYPE_CHECKING:
    from mcp.types import GetPromptResult, InputRequiredResult
    from mcp.types import Prompt as WirePrompt

__all__ = ["PromptManager"]

logger = logging.getLogger("mcp.server.prompts")
_duplicates_logger = logging.getLogger("mcp.server.mcpserver.prompts.manager")  # the official name, quoted by the docs


class PromptManager:
    """Holds the registered prompts by name, in registration order."""

    def __init__(self, warn_on_duplicate_prompts: bool = True) -> None:
        self._prompts: dict[str, Prompt] = {}
        self.warn_on_duplicate_prompts = warn_on_duplicate_prompts

    def add_prompt(self, prompt: Prompt) -> Prompt:
        """Register `prompt` and return it. When a prompt with the same name is already registered
        the existing one is kept and returned (with a `Prompt already exists: <name>` warning in
        the log unless `warn_on_duplicate_prompts=False`)."""
        existing = self._prompts.get(prompt.name)
        if existing is not None:
            if self.warn_on_duplicate_prompts:
                _duplicates_logger.warning("Prompt already exists: %s", prompt.name)
            return existing
        self._prompts[prompt.name] = prompt
        return prompt

    def remove_prompt(self, name: str) -> None:
        """Unregister the prompt called `name`; `ValueError` when there is none."""
        if self._prompts.pop(name, None) is None:
            raise ValueError(f"Unknown prompt: {name}")

    def get_prompt(self, name: str) -> Prompt | None:
        """The registered prompt called `name`, or `None`."""
        return self._prompts.get(name)

    def list_prompts(self) -> list[WirePrompt]:
        """The wire `Prompt`s of every registered prompt, in registration order."""
        return [prompt.to_wire() for prompt in self._prompts.values()]

    async def render_prompt(
        self, name: str, arguments: dict[str, str] | None = None, context: Any = None
    ) -> list[Message] | InputRequiredResult:
        """Render the prompt called `name` into its messages. Raises `ValueError(f"Unknown prompt:
        {name}")` for an unknown name and whatever `Prompt.render` raises (`ValueError` for missing
        arguments or a failed render, `MCPError` unchanged). An `InputRequiredResult` from the
        function is returned as is."""
        prompt = self._prompts.get(name)
        if prompt is None:
            raise ValueError(f"Unknown prompt: {name}")
        return await prompt.render(arguments, context)

    def plain_sync_renderer(self, name: str, arguments: dict[str, str] | None) -> Callable[[], GetPromptResult] | None:
        """prompts/get as one synchronous job producing its result, for a registered `plain_sync`
        prompt (else None)."""
        prompt = self._prompts.get(name)
        if prompt is None or not prompt.plain_sync:
            return None
        return lambda: prompt_result(prompt.description, prompt.render_sync(arguments))
