"""The file tools: read, write, edit, ls/find/grep and code_search, and what keeps them safe.

Owns: the tools (``read``, ``write``, ``edit``, ``listing``, ``search``, ``code_search``), how an edit finds its
text (``editmatch``), telling text from binary and decoding it with its BOM and line endings (``textfile``), stale-read
checks (``filestate``), workspace confinement (``workspace``, ``pathtools``), protected paths (``protected``),
diffs (``diff``) and the ripgrep driver (``ripgrep``).

May import: ``core``, ``config``, ``index`` (code_search), the framework in ``tools/`` (``base``) and
``tools.shell.output`` (size formatting). Start reading at ``read.py``, then ``workspace.py``.
"""
