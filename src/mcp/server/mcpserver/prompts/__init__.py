"""Prompts of `MCPServer`: `Prompt` (one registered prompt) and `PromptManager` (the registry).
Message helpers live in `mcp.server.mcpserver.prompts.base`."""

from mcp.server.mcpserver.prompts.base import Prompt
from mcp.server.mcpserver.prompts.manager import PromptManager

__all__ = ["Prompt", "PromptManager"]
