"""The official SDK's `mcpserver.utilities` paths: function metadata, Context injection, logging
and the media helpers, each a thin layer over the framework's own implementation."""
