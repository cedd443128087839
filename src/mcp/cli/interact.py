"""What the server sends while a command runs, shown on stderr (stdout stays the result): log
notifications as lines, progress notifications as a progress bar, and elicitation questions asked
on the terminal (or declined with `--no-input`)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.prompt import Confirm, Prompt

_LEVEL_STYLE = {"debug": "dim", "info": "cyan", "notice": "cyan", "warning": "yellow", "error": "red",
                "critical": "bold red", "alert": "bold red", "emergency": "bold red"}


class Interaction:
    """The callbacks a client command gives `Client(...)`, sharing one stderr console."""

    def __init__(self, console: Console, *, no_input: bool) -> None:
        self.console = console
        self.no_input = no_input
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    # -- logs -----------------------------------------------------------------------------------

    async def on_log(self, params: Any) -> None:
        level = str(params.level)
        data = params.data if isinstance(params.data, str) else json.dumps(params.data, default=str)
        source = f" {params.logger}:" if params.logger else ""
        style = _LEVEL_STYLE.get(level, "")
        self.console.print(f"[{style}]\\[{level}][/{style}]{source} {data}" if style else f"[{level}]{source} {data}",
                           markup=bool(style), highlight=False)

    # -- progress -------------------------------------------------------------------------------

    async def on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        if self._progress is None:
            self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                      TextColumn("{task.completed:g}/{task.fields[shown_total]}"),
                                      TimeElapsedColumn(), console=self.console, transient=False)
            self._progress.start()
            self._task = self._progress.add_task(message or "working", total=total, shown_total="?")
        assert self._task is not None
        shown = f"{total:g}" if total is not None else "?"
        if message:
            self._progress.update(self._task, completed=progress, total=total, description=message, shown_total=shown)
        else:
            self._progress.update(self._task, completed=progress, total=total, shown_total=shown)

    def finish(self) -> None:
        """Stop the progress bar (if one was shown) so the result prints below it."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    # -- elicitation ----------------------------------------------------------------------------

    async def on_elicit(self, context: Any, params: Any) -> Any:
        from mcp.types import ElicitResult

        if self.no_input:
            self.console.print(f"[yellow]declined (--no-input):[/yellow] {params.message}", highlight=False)
            return ElicitResult(action="decline")
        was_running = self._progress is not None
        if self._progress is not None:
            self._progress.stop()
        try:
            return self._ask(params)
        except (EOFError, KeyboardInterrupt):
            self.console.print("[yellow]cancelled[/yellow]")
            return ElicitResult(action="cancel")
        finally:
            if was_running and self._progress is not None:
                self._progress.start()

    def _ask(self, params: Any) -> Any:
        from mcp.types import ElicitResult

        self.console.print(f"[bold]The server asks:[/bold] {params.message}", highlight=False)
        if getattr(params, "mode", "form") == "url":
            self.console.print(f"Open: {params.url}", highlight=False)
            ok = Confirm.ask("Done / accept?", console=self.console, default=True)
            return ElicitResult(action="accept" if ok else "decline")
        schema: dict[str, Any] = params.requested_schema or {}
        properties: dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        if not Confirm.ask("Answer?", console=self.console, default=True):
            return ElicitResult(action="decline")
        content: dict[str, Any] = {}
        for name, prop in properties.items():
            value = self._ask_field(name, prop, name in required)
            if value is not None:
                content[name] = value
        return ElicitResult(action="accept", content=content)

    def _ask_field(self, name: str, prop: dict[str, Any], required: bool) -> Any:
        label = prop.get("title") or name
        if prop.get("description"):
            label = f"{label} ({prop['description']})"
        kind = prop.get("type", "string")
        choices = _choices(prop)
        default = prop.get("default")
        if kind == "boolean":
            return Confirm.ask(label, console=self.console, default=bool(default) if default is not None else False)
        while True:
            # rich's Prompt takes `...` as "no default": a required field without one must be typed.
            fallback: Any = str(default) if default is not None else ("" if not required else ...)
            answer = Prompt.ask(label + ("" if required else " (optional)"), console=self.console,
                                choices=choices, default=fallback)
            if answer == "" and not required:
                return None
            if kind == "array":
                return [part.strip() for part in answer.split(",") if part.strip()]
            if kind in ("integer", "number"):
                try:
                    return int(answer) if kind == "integer" else float(answer)
                except ValueError:
                    self.console.print(f"[red]{name} must be a {kind}[/red]")
                    continue
            return answer


def _choices(prop: dict[str, Any]) -> list[str] | None:
    if "enum" in prop:
        return [str(value) for value in prop["enum"]]
    options = prop.get("oneOf") or prop.get("anyOf")
    if isinstance(options, list) and all(isinstance(o, dict) and "const" in o for o in options):  # pyright: ignore[reportUnknownVariableType]
        return [str(o["const"]) for o in options]  # pyright: ignore[reportUnknownVariableType,reportUnknownArgumentType]
    return None
