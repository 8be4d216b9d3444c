"""The shell tool and the processes it starts.

Owns: the ``shell`` and ``shell_status`` tools (``shell``), background jobs (``jobs``), how a child is started and
never outlives navtui (``lifetime``, ``procs``), output capture and excerpts (``output``), pruning the output files
(``artifacts``) and the environment a command sees (``env``).

May import: ``core``, ``config``, the framework in ``tools/`` (``base``, ``approval``) and ``tools.sandbox``
(the policy a command runs under and the launcher it starts through). Start reading at ``shell.py``, then
``jobs.py`` and ``lifetime.py``.
"""
