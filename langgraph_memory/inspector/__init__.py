"""The memory inspector: a local web page where a person sees, corrects and purges
what a store remembers about them (``langgraph-memory inspect``).

It needs the ``inspect`` extra (``pip install "langgraph-memory-kit[inspect]"``:
Starlette, Jinja2 and uvicorn). ``create_app(store)`` is the ASGI app, for serving
it another way or testing it; ``views`` reads what each page shows and ``actions``
makes each change, both on the store's public API.
"""

from langgraph_memory.inspector.app import create_app

__all__ = ["create_app"]
