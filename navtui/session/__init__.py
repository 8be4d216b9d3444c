"""Sessions: an append-only JSONL tree of entries (pi/omp format v3) with a leaf pointer.

``manager.SessionManager`` is the API; ``entries`` the line models, ``store``/``writer`` the file I/O,
``tree`` the index, ``context`` what the model sees, ``listing`` finding files, ``export`` HTML/Markdown.
"""
