"""THE exception tree of the SDK. Every error the SDK raises on purpose lives here.

    Exception
    ├── MCPError(code, message, data)            a JSON-RPC error, on either side of the wire
    │   ├── NoBackChannelError                   server->client request with no way to send it
    │   └── UrlElicitationRequiredError          -32042: the client must visit a URL first
    ├── MCPServerError                           framework-side failures (mcp.server.mcpserver)
    │   ├── ToolError                            a tool could not run
    │   ├── ResourceError
    │   │   ├── ResourceNotFoundError
    │   │   └── UnexpectedResourceError
    │   └── InvalidSignature                     a handler signature that cannot be served
    ├── InvalidUriTemplate(ValueError)
    ├── PathEscapeError(ValueError)
    └── RuntimeError
        ├── InputRequiredRoundsExceededError     the client gave up after N input rounds
        └── SubscriptionLost / ListenNotSupportedError

    UserWarning
    └── MCPDeprecationWarning

One function maps an exception to a JSON-RPC error (`error_fields_for`, in the engine's form;
`error_data_for` builds the `ErrorData` model from it), one maps a received error back
(`error_from_wire`; `MCPError.from_jsonrpc_error` / `from_error_data` for the models).
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any, Literal, cast

from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, URL_ELICITATION_REQUIRED

if TYPE_CHECKING:
    from mcp.types import ElicitRequestURLParams, ErrorData


class MCPError(Exception):
    """A JSON-RPC error: raised by handlers to answer with an error, raised to callers on receipt.

    `args` is `(code, message, data)` and `str()` is the message, as in the official SDK; `code`,
    `message` and `data` are plain attributes (no model is built until `.error` is read).
    """

    code: int
    message: str
    data: Any

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data

    def __str__(self) -> str:
        return self.message

    @property
    def error(self) -> ErrorData:
        """The error as an `ErrorData` model."""
        from mcp.types import ErrorData

        return ErrorData(code=self.code, message=self.message, data=self.data)

    @classmethod
    def from_jsonrpc_error(cls, error: Any) -> MCPError:
        """Build from a `JSONRPCError` (or, leniently, an `ErrorData` or a wire error dict)."""
        if hasattr(error, "error"):
            error = error.error
        if isinstance(error, dict):
            wire = cast("dict[str, Any]", error)
            return cls(int(wire.get("code", INTERNAL_ERROR)), str(wire.get("message", "")), wire.get("data"))
        return cls.from_error_data(error)

    @classmethod
    def from_error_data(cls, error: ErrorData) -> MCPError:
        """Build from the `error` member of a JSON-RPC error response."""
        return cls(code=error.code, message=error.message, data=error.data)

    def to_wire(self) -> dict[str, Any]:
        """The JSON-RPC `error` member."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            out["data"] = self.data
        return out


class NoBackChannelError(MCPError):
    """A server->client request on a connection that cannot carry one (stateless or 2026-07-28)."""

    def __init__(self, method: str) -> None:
        super().__init__(
            INVALID_REQUEST,
            f"Cannot send {method!r}: this transport context has no back-channel for server-initiated requests.",
        )
        self.method = method


class UrlElicitationRequiredError(MCPError):
    """-32042 (2025-11-25): the user must complete URL elicitations before the request can proceed.

    Raise it from a handler with the `ElicitRequestURLParams` to visit; a client gets it back from
    the error it received with `from_error`.
    """

    def __init__(self, elicitations: list[ElicitRequestURLParams], message: str | None = None) -> None:
        if message is None:
            message = "URL elicitations required" if len(elicitations) > 1 else "URL elicitation required"
        wire: list[Any] = [
            e if isinstance(e, dict) else e.model_dump(by_alias=True, exclude_none=True) for e in elicitations
        ]
        super().__init__(URL_ELICITATION_REQUIRED, message, {"elicitations": wire})
        self._elicitations = elicitations

    @property
    def elicitations(self) -> list[ElicitRequestURLParams]:
        """The URL elicitations to complete before retrying."""
        return self._elicitations

    @classmethod
    def from_error(cls, error: ErrorData) -> UrlElicitationRequiredError:
        """Rebuild from the `ErrorData` of a -32042 error received over the wire."""
        if error.code != URL_ELICITATION_REQUIRED:
            raise ValueError(f"Expected error code {URL_ELICITATION_REQUIRED}, got {error.code}")
        from mcp.types import ElicitRequestURLParams

        data = cast("dict[str, Any]", error.data or {})
        raw: list[Any] = data.get("elicitations") or []
        return cls([ElicitRequestURLParams.model_validate(item) for item in raw], error.message)


class MCPServerError(Exception):
    """Base of framework-side server errors."""


class ToolError(MCPServerError):
    """A tool failed; becomes an `is_error` result."""


class ResourceError(MCPServerError):
    """A resource could not be read."""


class PromptRenderingFailed(ValueError):
    """A prompt function (its argument validation, or the conversion of its value) failed:
    `Prompt.render` raises it as the official `ValueError("Error rendering prompt <name>")`, the
    cause as its `__cause__` (logged, never in the answer: its text may hold secrets or paths).
    prompts/get answers it as the official SDK does: code 0 with that text on the handshake-era
    wire, -32603 "Internal server error" on 2026-07-28."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Error rendering prompt {name}")
        self.name = name


class ResourceNotFoundError(ResourceError):
    """No such resource: nothing matches the URI, or its function says so (-32602, own message)."""


class UnexpectedResourceError(ResourceError):
    """A resource or template function failed with something other than `ResourceError` or
    `MCPError`; the message names only the URI, the original is the `__cause__` (logged)."""


class InvalidSignature(MCPServerError):
    """A function cannot be registered as a handler as written."""


class InputRequiredRoundsExceededError(RuntimeError):
    """The server kept answering `InputRequiredResult` past the client's `input_required_max_rounds`."""

    def __init__(self, max_rounds: int) -> None:
        super().__init__(
            f"Server returned InputRequiredResult for more than {max_rounds} rounds; "
            "raise input_required_max_rounds on the Client, or use "
            "client.session.<method>(..., allow_input_required=True) to drive the loop manually."
        )
        self.max_rounds = max_rounds


class InvalidUriTemplate(ValueError):
    """A URI template that does not parse (or exceeds a size limit).

    `template` is the template as given; `position` the character offset of the problem, or `None`
    when it is not tied to one place.
    """

    def __init__(self, message: str, *, template: str, position: int | None = None) -> None:
        super().__init__(message)
        self.template = template
        self.position = position


class PathEscapeError(ValueError):
    """A path that would escape its base directory."""


class SubscriptionLost(RuntimeError):
    """A `subscriptions/listen` stream ended unexpectedly."""


class ListenNotSupportedError(RuntimeError):
    """`subscriptions/listen` needs a 2026-07-28 connection; `negotiated_version` is the one in force."""

    def __init__(self, negotiated_version: str | None) -> None:
        self.negotiated_version = negotiated_version
        super().__init__(
            f"subscriptions/listen is not available at protocol version {negotiated_version!r}; it requires "
            "2026-07-28. On earlier versions use subscribe_resource() and the change notifications delivered "
            "through message_handler.")


# -- exception <-> wire error -----------------------------------------------------------------------

UnexpectedAnswer = Literal["text", "internal_text", "masked", "opaque", "client"]
"""How a failure that carries no answer of its own (see `answers_itself`) is answered; each is a
pinned answer of the official SDK at one place:

- `"text"`: code 0 and the exception's text (a handler on the handshake-era wire);
- `"internal_text"`: -32603 and the exception's text (an in-process caller that asked to see it);
- `"masked"`: -32603 "Internal server error" (a handler on the 2026-07-28 wire);
- `"opaque"`: -32603 "Internal error" (the engine's last line, a direct dispatcher that hides it);
- `"client"`: -32603 "Client error: <text>", for *any* exception but an `MCPError` (a client's
  callback: its failure is its own, a pydantic error included)."""

INVALID_PARAMS_MESSAGE = "Invalid request parameters"
"""The text of the -32602 a pydantic `ValidationError` is answered with (pydantic's own is not sent)."""


def _is_validation_error(exc: BaseException) -> bool:
    """Is `exc` pydantic's `ValidationError`? (Without importing pydantic: none exists before it is.)"""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(exc, pydantic.ValidationError)


def answers_itself(exc: BaseException) -> bool:
    """Whether `exc` carries its own wire answer: an `MCPError`, or pydantic's `ValidationError`
    (-32602). Anything else is a failure the caller logs and answers by its `UnexpectedAnswer`."""
    return isinstance(exc, MCPError) or _is_validation_error(exc)


def error_fields_for(exc: BaseException, unexpected: UnexpectedAnswer = "masked") -> tuple[int, str, Any]:
    """`(code, message, data)` of the JSON-RPC error answering `exc`: an `MCPError`'s own,
    -32602 `INVALID_PARAMS_MESSAGE` (data `""`) for a pydantic `ValidationError`, else as
    `unexpected` says. The one exception-to-wire mapping; pure (the caller logs)."""
    if isinstance(exc, MCPError):
        return exc.code, exc.message, exc.data
    if unexpected == "client":
        return INTERNAL_ERROR, f"Client error: {exc}", None
    if _is_validation_error(exc):
        return INVALID_PARAMS, INVALID_PARAMS_MESSAGE, ""
    if unexpected == "text":
        return 0, str(exc), None
    if unexpected == "internal_text":
        return INTERNAL_ERROR, str(exc), None
    if unexpected == "opaque":
        return INTERNAL_ERROR, "Internal error", None
    return INTERNAL_ERROR, "Internal server error", None


def error_data_for(exc: BaseException, unexpected: UnexpectedAnswer = "masked") -> ErrorData:
    """`error_fields_for` as the `ErrorData` model."""
    from mcp.types import ErrorData

    code, message, data = error_fields_for(exc, unexpected)
    return ErrorData(code=code, message=message, data=data)


def error_from_wire(error: Any) -> MCPError:
    """The exception for the `error` member of a received error response (a dict): an `MCPError`,
    or the `NoBackChannelError` it stands for (as the official in-memory client sees it). A
    malformed error object (a peer's bug) still becomes an `MCPError`, never something else."""
    code, message = error.get("code"), error.get("message")
    if type(code) is not int or type(message) is not str:
        return MCPError(INTERNAL_ERROR, "Malformed error response: code must be an integer and message a string")
    no_back_channel = _NO_BACK_CHANNEL.fullmatch(message) if code == INVALID_REQUEST else None
    if no_back_channel is not None and error.get("data") is None:
        return NoBackChannelError(no_back_channel.group(1))
    return MCPError(code, message, error.get("data"))


_NO_BACK_CHANNEL = re.compile(r"Cannot send '([^']+)': this transport context has no back-channel for "
                              r"server-initiated requests\.")


class MCPDeprecationWarning(UserWarning):
    """A deprecated protocol feature or SDK API was used."""


def single_leaf(exc: BaseException) -> BaseException:
    """The one real error inside nested single-member exception groups (else `exc` itself), so that
    task-group plumbing never reaches users as a bare `ExceptionGroup`."""
    while isinstance(exc, _BaseExceptionGroup) and len(exc.exceptions) == 1:  # pyright: ignore
        exc = cast(BaseException, exc.exceptions[0])  # pyright: ignore
    return exc


try:
    _BaseExceptionGroup = BaseExceptionGroup  # type: ignore[name-defined]
except NameError:  # Python 3.10
    from exceptiongroup import BaseExceptionGroup as _BaseExceptionGroup  # type: ignore[no-redef]


def warn_deprecated(feature: str, stacklevel: int = 3) -> None:
    """The one `MCPDeprecationWarning` text per retired feature (SEP-2577 / SEP-2575)."""
    import warnings

    messages = {
        "roots": "The roots capability is deprecated as of 2026-07-28 (SEP-2577).",
        "sampling": "The sampling capability is deprecated as of 2026-07-28 (SEP-2577).",
        "logging": "The logging capability is deprecated as of 2026-07-28 (SEP-2577).",
        "ping": "ping is removed as of 2026-07-28; the method only works under mode='legacy'.",
        "progress": "Client-to-server progress is deprecated as of 2026-07-28; progress is server-to-client only.",
    }
    warnings.warn(messages[feature], MCPDeprecationWarning, stacklevel=stacklevel)
