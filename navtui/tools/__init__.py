"""The tools the model calls, and the framework they share.

The framework is this package's own modules: ``base`` (the ``Tool`` contract: one pydantic argument model, a
tier, ``run(args, ctx)``), ``schema`` (the JSON schema a model sees), ``approval`` (the policy as data),
``authorize`` (the policy applied to one call) and ``registry`` (the standard tool set and the context tools run
in). The tools live in sub-packages, one idea each: ``files/``, ``shell/``, ``sandbox/``, ``danger/``; each
``__init__`` says what it owns, what it may import and where to start reading (docs/architecture.md draws the
arrows). Start reading at ``base.py``, then ``registry.py``.
"""
