"""The MCP server: a user's memory for any MCP client (Claude Desktop, Cursor, IDE
agents, LangGraph through ``langchain-mcp-adapters``), served by
``langgraph-memory mcp`` over stdio or streamable HTTP.

It needs the ``mcp`` extra (``pip install 'langgraph-memory-kit[mcp]'``: the official
``mcp`` SDK). ``bindings`` says whose memory a connection reaches (one scope, fixed at
start or by a bearer token), ``answers`` does each tool's work on the store's public API
and the background writer, and ``server`` puts them behind the SDK's FastMCP. See
docs/mcp.md.
"""

from langgraph_memory.mcp_server.answers import Answers
from langgraph_memory.mcp_server.bindings import Binding, TokenTable, token_sha256
from langgraph_memory.mcp_server.server import create_server, token_bound

__all__ = ["Answers", "Binding", "TokenTable", "create_server", "token_bound", "token_sha256"]
