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
    ├── InputRequiredRoundsExceededError         the client gave up after N input rounds
    ├── InvalidUriTemplate(ValueError)
    ├── PathEscapeError(ValueError)
    └── SubscriptionLost / ListenNotSupportedError (RuntimeError)

    UserWarning
    └── MCPDeprecationWarning

One function maps an exception to JSON-RPC error data (`error_data_for`), one maps back
(`MCPError.from_jsonrpc_error`).
"""

from __future__ import annotations

from typing import Any, cast

from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, URL_ELICITATION_REQUIRED


class MCPError(Exception):
    """A JSON-RPC error: raised by handlers to answer with an error, raised to callers on receipt."""

    code: int
    message: str
    data: Any

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    @property
    def error(self) -> Any:
        """The error as an `ErrorData` model (official SDK compatibility)."""
        from mcp.types import ErrorData

        return ErrorData(code=self.code, message=self.message, data=self.data)

    @classmethod
    def from_jsonrpc_error(cls, error: Any) -> MCPError:
        """Build from a wire error object (dict) or an `ErrorData` / `JSONRPCError` model."""
        if hasattr(error, "error"):
            error = error.error
        if isinstance(error, dict):
            wire = cast("dict[str, Any]", error)
            return cls(int(wire.get("code", INTERNAL_ERROR)), str(wire.get("message", "")), wire.get("data"))
        return cls(error.code, error.message, getattr(error, "data", None))

    @classmethod
    def from_error_data(cls, error: Any) -> MCPError:
        return cls.from_jsonrpc_error(error)

    def to_wire(self) -> dict[str, Any]:
        """The JSON-RPC `error` member."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            out["data"] = self.data
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r}, data={self.data!r})"


class NoBackChannelError(MCPError):
    """A server->client request on a connection that cannot carry one (stateless or 2026-07-28)."""

    def __init__(self, method: str) -> None:
        super().__init__(
            INVALID_REQUEST,
            f"Cannot send {method!r}: this transport context has no back-channel for server-initiated requests.",
        )
        self.method = method


class UrlElicitationRequiredError(MCPError):
    """The server needs the user to complete a URL elicitation before the request can proceed."""

    def __init__(self, elicitations: list[Any], message: str | None = None) -> None:
        wire: list[Any] = [
            e if isinstance(e, dict) else e.model_dump(by_alias=True, exclude_none=True) for e in elicitations
        ]
        data = {"elicitations": wire}
        super().__init__(URL_ELICITATION_REQUIRED, message or "URL elicitation required", data)
        self.elicitations = elicitations


class MCPServerError(Exception):
    """Base of framework-side server errors."""


class ToolError(MCPServerError):
    """A tool failed; becomes an `is_error` result."""


class ResourceError(MCPServerError):
    """A resource could not be read."""


class ResourceNotFoundError(ResourceError):
    """No such resource: nothing matches the URI, or its function says so (-32602, own message)."""


class UnexpectedResourceError(ResourceError):
    """A resource or template function failed with something other than `ResourceError` or
    `MCPError`; the message names only the URI, the original is the `__cause__` (logged)."""


class InvalidSignature(MCPServerError):
    """A function cannot be registered as a handler as written."""


class InputRequiredRoundsExceededError(Exception):
    """The server kept asking for input past the client's `input_required_max_rounds`."""


class InvalidUriTemplate(ValueError):
    """A URI template that does not parse."""


class PathEscapeError(ValueError):
    """A path that would escape its base directory."""


class SubscriptionLost(RuntimeError):
    """A `subscriptions/listen` stream ended unexpectedly."""


class ListenNotSupportedError(RuntimeError):
    """The server does not support `subscriptions/listen`."""


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
