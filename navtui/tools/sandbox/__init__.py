"""The shell sandbox: a Landlock policy, namespaces, and the launcher every command starts through.

Owns: the policy as data, built from settings (``policy``), the stdlib-only launcher run between fork and exec
(``exec``: parent-death signal, Landlock, then exec; ``namespaces``: its user/mount/PID namespaces, or the
subreaper fallback; run as scripts, so they import nothing of navtui), the files commands may not change and
the check that undoes changes to them (``guard``), what to
tell the user when the sandbox blocked a command and asking to re-run it unconfined (``blocked``), and
``navtui sandbox`` (``cli``).

May import: ``core``, ``config``, the framework in ``tools/``, ``tools.danger`` (is a re-run destructive) and, for
``blocked`` and ``cli`` only, ``tools.shell`` (a job's output, starting a command). Start reading at ``policy.py``,
then ``exec.py`` and ``namespaces.py``.
"""
