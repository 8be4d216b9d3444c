"""The shell sandbox: a Landlock policy and the launcher every command starts through.

Owns: the policy as data, built from settings (``policy``), the stdlib-only launcher run between fork and exec
(``exec``: parent-death signal, Landlock, then exec; run as a script, so it imports nothing of navtui), what to
tell the user when the sandbox blocked a command and asking to re-run it unconfined (``blocked``), and
``navtui sandbox`` (``cli``).

May import: ``core``, ``config``, the framework in ``tools/``, ``tools.danger`` (is a re-run destructive) and, for
``blocked`` and ``cli`` only, ``tools.shell`` (a job's output, starting a command). Start reading at ``policy.py``,
then ``exec.py``.
"""
