"""Prints, as JSON, which `mcp` this interpreter imports and which distributions own its files."""

import importlib.metadata as metadata
import json
import sys
from pathlib import Path

import mcp
import mcp_types


def owners(path: str) -> list[str]:
    """The installed distributions whose RECORD lists `path`."""
    found = []
    for dist in metadata.distributions():
        for file in dist.files or ():
            if Path(str(dist.locate_file(file))).resolve() == Path(path).resolve():
                found.append(dist.metadata["Name"])
    return sorted(found)


print(json.dumps({
    "prefix": sys.prefix,
    "mcp_file": mcp.__file__,
    "mcp_types_file": mcp_types.__file__,
    "mcp_version": metadata.version("mcp"),
    "mcp_types_version": metadata.version("mcp-types"),
    "mcpkit_version": metadata.version("mcpkit"),
    "mcp_owners": owners(mcp.__file__),
    "mcp_types_owners": owners(mcp_types.__file__),
    "requires_mcpkit": metadata.requires("mcp"),
    "mcp_files": [str(f) for f in metadata.files("mcp") or ()],
}))
