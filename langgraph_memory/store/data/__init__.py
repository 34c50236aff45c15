"""What acts on a whole scope's data: export and import, purge, upgrade.

``export_format`` is the export file's format; ``import_checks`` every check an
import makes on one before it touches the store; ``exports`` exports a scope and
imports one into an empty scope (with the links it may keep to other scopes);
``purging`` erases chains for good; ``upgrade`` migrates a store by hand, with a
backup first (``langgraph-memory migrate``).
"""
