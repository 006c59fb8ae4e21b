"""A server built with the official Python SDK (mcp 2.x ``MCPServer``) over stdio, which speaks 2026-07-28 to a
client that asks for it: subscriptions (``subscriptions/listen``: the SDK's own listen handler), caching hints
(``cache_hints``: tools/list fresh for ``--tools-ttl`` ms, public; resources/read 5 s, private) and a multi-round
tool (``greet``: its ``name`` is elicited with the SDK's ``Resolve``/``Elicit``, which on 2026-07-28 is an
``input_required`` result and a retry with ``inputResponses`` and ``requestState``).

Tools: ``add_tool NAME`` adds a tool and says so (tools list_changed), ``touch URI`` says the resource changed
(resources/updated), ``greet`` (multi-round), ``summarize`` (multi-round, asking the client to sample with
``includeContext: "thisServer"``, and for its roots: features 2026-07-28 deprecates), ``echo``. Resource
``test://greeting``; prompt ``review``.
"""

import sys
from typing import Annotated

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp_types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel

TOOLS_TTL = int(sys.argv[sys.argv.index("--tools-ttl") + 1]) if "--tools-ttl" in sys.argv else 60000

server = MCPServer("sdk-modern", version="1.0.0", cache_hints={
    "tools/list": CacheHint(ttl_ms=TOOLS_TTL, scope="public"),
    "resources/read": CacheHint(ttl_ms=5000, scope="private"),
})


class Name(BaseModel):
    name: str = "Ada"


def ask_name() -> Elicit[Name]:
    return Elicit("Who should be greeted?", Name)


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Add a tool named NAME, and announce the change."""
    server.add_tool(lambda: "added", name=name, description="added at run time")
    await ctx.notify_tools_changed()
    return f"added {name}"


@server.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Announce that the resource URI changed."""
    await ctx.notify_resource_updated(uri)
    return f"touched {uri}"


@server.tool()
def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Greet someone whose name is asked for (a multi-round call on 2026-07-28)."""
    return f"Hello, {who.name}!"


def ask_summary() -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text="Summarize."))], max_tokens=20,
                  include_context="thisServer")


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def summarize(summary: Annotated[CreateMessageResult, Resolve(ask_summary)],
              roots: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """Ask the client's model for a summary and for the client's roots (deprecated in 2026-07-28)."""
    text = summary.content.text if isinstance(summary.content, TextContent) else "?"
    return f"{text} ({len(roots.roots)} roots)"


@server.tool()
def echo(message: str) -> str:
    """Return the message unchanged."""
    return message


@server.resource("test://greeting", name="greeting", mime_type="text/plain")
def greeting() -> str:
    """A fixed greeting."""
    return "hello from the SDK"


@server.prompt()
def review(code: str) -> str:
    """Ask for a review of some code."""
    return f"Please review this code:\n{code}"


if __name__ == "__main__":
    server.run("stdio")
