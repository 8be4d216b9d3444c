"""The destructive-command policy: shell commands that always ask before they run (outside yolo).

Owns: the rule table and the check (``rules``), the bash parser on tree-sitter (``shellparse``), the simple
commands a script would run, wrappers peeled off (``shellcalls``), and the per-topic judges: git (``git``),
paths a command would destroy (``targets``) and options that turn an ordinary program destructive (``options``).

May import: ``core`` and ``tools.files.protected`` (which paths are protected). Start reading at ``rules.py``.
"""
