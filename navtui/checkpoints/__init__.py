"""Workspace checkpoints: what the files looked like after each turn, and putting them back.

Owns a content-addressed store outside the repository (``store``), the walk that snapshots a workspace into
it (``snapshot``), comparing snapshots and restoring files (``restore``), and reading the checkpoint entries a
session file holds (``history``). Imports ``core``, ``config`` and ``session``; never Textual. Start with
``snapshot.Snapshotter`` and ``restore.plan_restore``.
"""
