"""The ``langgraph-memory`` command: a demo, a chat, and tools to inspect a store.

    langgraph-memory demo                        # a scripted multi-session conversation
    langgraph-memory chat --user alice           # talk to an agent that remembers you
    langgraph-memory scopes                      # every user and scope, with counts
    langgraph-memory show --user alice           # what it remembers about you, with ids
    langgraph-memory history --user alice ID     # every version of one memory
    langgraph-memory why --user alice ID         # the decisions behind it
    langgraph-memory export --user alice         # everything, as JSON
    langgraph-memory inspect                     # a local web page: see, correct, delete
    langgraph-memory mcp --user alice            # the memory for MCP clients (stdio; or HTTP)
    langgraph-memory import --user alice --in F  # restore an export into an empty scope
    langgraph-memory purge --user alice          # hard-delete (all, or --ids ...); asks, or --yes
    langgraph-memory reviews --to agent:support  # proposals to move a memory into a wider scope
    langgraph-memory approve ID / reject ID      # decide one (--admin for an org scope)
    langgraph-memory maintain [--dry-run]        # decay, consolidation, reflection

Every command takes ``--path DIR`` (an embedded store) or ``--server HOST:PORT``
(a Chroma server, which works while an app uses the store through it); show,
history, why, scopes, reviews and maintain take ``--json``. Each command imports what it uses when
it runs, so ``--help`` and a mistyped command answer at once.

>>> parser().parse_args(["show", "--user", "alice"]).scope
'user:alice'
"""

from langgraph_memory.cli.app import main, parser

__all__ = ["main", "parser"]
