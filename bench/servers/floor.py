"""The cold start floor: the bench server's models answering stdio with no SDK at all.

What any SDK's stdio cold start cannot go below on this interpreter: Python's startup, the pydantic
import, the bench's `WeatherData` model (and its JSON schema, which a tools/list answer carries),
and a plain loop answering `initialize` and `tools/list` with the three tools of `weather.py`.
`run.py` starts it beside each column's server and reports the cold start above this floor.
"""

from __future__ import annotations

import json
import sys

from pydantic import BaseModel


class WeatherData(BaseModel):
    """Weather at one place."""

    city: str
    temperature: float
    conditions: str


def _object(fields: dict[str, str], title: str) -> dict[str, object]:
    properties = {name: {"title": name.title(), "type": kind} for name, kind in fields.items()}
    return {"properties": properties, "required": list(fields), "title": title, "type": "object"}


def tools() -> list[dict[str, object]]:
    weather = WeatherData.model_json_schema(mode="serialization")
    return [
        {"name": "add", "description": "Add two integers.", "inputSchema": _object({"a": "integer", "b": "integer"}, "addArguments"),
         "outputSchema": _object({"result": "integer"}, "addOutput")},
        {"name": "weather", "description": "Current weather for a city.",
         "inputSchema": _object({"city": "string"}, "weatherArguments"), "outputSchema": weather},
        {"name": "forecast", "description": "A forecast of n entries.", "inputSchema": _object({"n": "integer"}, "forecastArguments"),
         "outputSchema": {"$defs": {"WeatherData": weather}, "properties": {"result": {
             "items": {"$ref": "#/$defs/WeatherData"}, "title": "Result", "type": "array"}},
             "required": ["result"], "title": "forecastOutput", "type": "object"}},
    ]


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        if message["method"] == "initialize":
            result: dict[str, object] = {"protocolVersion": message["params"]["protocolVersion"],
                                         "capabilities": {"tools": {"listChanged": False}},
                                         "serverInfo": {"name": "bench-floor", "version": "0"}}
        elif message["method"] == "tools/list":
            result = {"tools": tools()}
        else:
            result = {}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
