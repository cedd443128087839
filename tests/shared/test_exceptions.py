"""The exception classes behave as the official SDK's: args, reprs, round trips from the wire."""

from __future__ import annotations

import pickle

import pytest

import mcp
import mcp.types as types
from mcp import InputRequiredRoundsExceededError, MCPError, UrlElicitationRequiredError


def test_mcp_error_args_are_code_message_data_and_str_is_the_message() -> None:
    error = MCPError(-1, "m", {"x": 1})
    assert error.args == (-1, "m", {"x": 1})
    assert str(error) == "m"
    assert repr(error) == "MCPError(-1, 'm', {'x': 1})"
    assert (error.code, error.message, error.data) == (-1, "m", {"x": 1})
    assert error.error == types.ErrorData(code=-1, message="m", data={"x": 1})


def test_mcp_error_survives_pickling() -> None:
    error = pickle.loads(pickle.dumps(MCPError(-32602, "bad", None)))
    assert (error.code, error.message, error.data) == (-32602, "bad", None)


def test_mcp_error_is_rebuilt_from_error_data_and_from_a_jsonrpc_error() -> None:
    data = types.ErrorData(code=1, message="m")
    assert repr(MCPError.from_error_data(data)) == "MCPError(1, 'm', None)"
    response = types.JSONRPCError(jsonrpc="2.0", id=1, error=data)
    rebuilt = MCPError.from_jsonrpc_error(response)
    assert (rebuilt.code, rebuilt.message, rebuilt.data) == (1, "m", None)


def test_url_elicitation_required_error_round_trips_through_its_error_data() -> None:
    params = types.ElicitRequestURLParams(mode="url", message="m", url="https://x", elicitation_id="e")
    error = UrlElicitationRequiredError([params])
    assert error.elicitations == [params]
    assert str(error) == "URL elicitation required"
    again = UrlElicitationRequiredError.from_error(error.error)
    assert again.elicitations == [params]
    assert again.args == error.args
    assert str(UrlElicitationRequiredError([params, params])) == "URL elicitations required"


def test_url_elicitation_required_error_refuses_another_code() -> None:
    with pytest.raises(ValueError, match="Expected error code -32042, got 1"):
        UrlElicitationRequiredError.from_error(types.ErrorData(code=1, message="m"))


def test_input_required_rounds_exceeded_is_a_runtime_error_that_names_the_limit() -> None:
    error = InputRequiredRoundsExceededError(3)
    assert isinstance(error, RuntimeError)
    assert error.max_rounds == 3
    assert "more than 3 rounds" in str(error)
    assert "input_required_max_rounds" in str(error)
    assert mcp.InputRequiredRoundsExceededError is InputRequiredRoundsExceededError


def _validation_error() -> Exception:
    from pydantic import BaseModel, ValidationError

    class Model(BaseModel):
        n: int

    try:
        Model.model_validate({"n": "not a number"})
    except ValidationError as exc:
        return exc
    raise AssertionError("the model accepted a string")


def test_every_exception_maps_to_one_wire_error_by_the_callers_answer_for_the_unexpected() -> None:
    from mcp.shared.exceptions import answers_itself, error_data_for, error_fields_for

    own = MCPError(-5, "own", {"k": 1})
    invalid = _validation_error()
    boom = RuntimeError("boom")
    assert answers_itself(own) and answers_itself(invalid) and not answers_itself(boom)
    for unexpected in ("text", "internal_text", "masked", "opaque", "client"):
        assert error_fields_for(own, unexpected) == (-5, "own", {"k": 1})
    assert error_fields_for(invalid) == (-32602, "Invalid request parameters", "")
    assert error_fields_for(boom) == (-32603, "Internal server error", None)
    assert error_fields_for(boom, "text") == (0, "boom", None)
    assert error_fields_for(boom, "internal_text") == (-32603, "boom", None)
    assert error_fields_for(boom, "opaque") == (-32603, "Internal error", None)
    # a client's callback failure is its own, whatever it is (a pydantic error included)
    assert error_fields_for(boom, "client") == (-32603, "Client error: boom", None)
    assert error_fields_for(invalid, "client")[:1] == (-32603,)
    assert error_data_for(own) == types.ErrorData(code=-5, message="own", data={"k": 1})


def test_a_received_error_becomes_one_exception_and_a_malformed_one_still_an_mcp_error() -> None:
    from mcp.shared.exceptions import NoBackChannelError, error_from_wire

    error = error_from_wire({"code": -7, "message": "m", "data": [1]})
    assert type(error) is MCPError and (error.code, error.message, error.data) == (-7, "m", [1])
    assert type(error_from_wire({"code": "x", "message": "m"})) is MCPError
    assert error_from_wire({"code": "x"}).code == -32603
    wire = {"code": NoBackChannelError("roots/list").code, "message": NoBackChannelError("roots/list").message}
    back = error_from_wire(wire)
    assert isinstance(back, NoBackChannelError) and back.method == "roots/list"
