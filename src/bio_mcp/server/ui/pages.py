"""The evidence page at `/ui`: static HTML and ES modules shipped in the package, no CDN.

The files hold no data and no secret, so they are served without a token; everything they show
comes from `/graphql`, which needs one (the page asks for it and keeps it in sessionStorage).
"""

from __future__ import annotations

from pathlib import Path

from starlette.staticfiles import StaticFiles

UI_PATH = "/ui"
STATIC_DIR = Path(__file__).parent / "static"


def evidence_page() -> StaticFiles:
    return StaticFiles(directory=STATIC_DIR, html=True)
