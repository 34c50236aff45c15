"""A tool call through the MCP SDK's client, as the MCP tests make it: whether the
server answered with an error, and its text."""

from __future__ import annotations

from typing import Any

from mcp import ClientSession
from mcp.types import TextContent

__all__ = ["call"]


async def call(session: ClientSession, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
    """Call ``tool``: (is it an error, the text of its one content block)."""
    result = await session.call_tool(tool, args)
    [content] = result.content
    assert isinstance(content, TextContent)
    return bool(result.isError), content.text
