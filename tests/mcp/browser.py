"""A browser for the sign-in tests, named in ``BROWSER``: it opens the URL it is given (the authorization
server's consent page approves at once) and follows the redirects to navtui's callback, as a user's would.
``MCP_TEST_DIR/browser`` gets the final page's status and text."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import httpx

page = httpx.get(sys.argv[1], follow_redirects=True, timeout=30)
Path(os.environ["MCP_TEST_DIR"], "browser").write_text(f"{page.status_code} {page.text}")
sys.exit(0 if page.status_code == 200 else 1)
