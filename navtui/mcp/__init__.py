"""MCP servers as tools: configuration, approval of a repository's servers, connections, the tool adapter.

Nothing here imports textual. The ``mcp`` SDK is imported only when a server actually starts, so a
configuration without servers (and the first frame) never pays for it.
"""
