"""The web app of ``risk-env serve``: a :class:`~risk_env.web.session.GameSession` behind a small JSON API, and
the page that plays it.

Built on FastAPI (served by uvicorn): a well-kept framework with typed request bodies (pydantic), a test
client, and nothing to configure for one local page; the app holds one game and serves one person.

==========================  =====================================================================
route                       what it does
==========================  =====================================================================
``GET /``                   the page (HTML; its script and style from ``/static/``)
``GET /api/game``           the game now, with the board's SVG and the moves so far
                            (:meth:`GameSession.view <risk_env.web.session.GameSession.view>`)
``POST /api/act``           ``{"action": id}``: the person's action id, then the agents' moves;
                            409 with ``{"detail": why}`` for an id the env does not allow now, or
                            for an agent's failure (the game is then over: ``GET /api/game`` says so)
``POST /api/new``           ``{"seed": n}`` (or ``{}``: a seed drawn from fresh entropy): the next game
``GET /api/record``         the finished game's record (JSON, a file to download; ``risk-env replay``
                            reads it); 409 while the game is on
``POST /api/save``          writes the finished game's record to the ``--record`` path; 409 while the
                            game is on, or without a path
==========================  =====================================================================

The replies hold only what the person's seat may know (no seed, no other seat's cards or mission:
:meth:`GameSession.view <risk_env.web.session.GameSession.view>`). The record holds the seed and every
move, hence all that is hidden, so it is the person's only once the game is over
(:meth:`GameSession.finished_record <risk_env.web.session.GameSession.finished_record>`); the server's
``--record`` file is written whenever a game ends or is left.

Bad input gets a clear error: a body that is not ``{"action": integer}`` is refused with 422 by the
framework, a legal-looking id that the env refuses with 409 and the env's own message; either way the
game is unchanged.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import webbrowser
from importlib import resources
from typing import Any

from .._extras import require
from ..errors import RiskError
from ..records.svg import BOARD_JS
from .session import GameSession

require("fastapi", "web", "the web app (risk-env serve)")

from fastapi import Body, FastAPI, HTTPException  # noqa: E402
from fastapi.responses import HTMLResponse, JSONResponse, Response  # noqa: E402
from pydantic import BaseModel, StrictInt  # noqa: E402

__all__ = ["create_app", "serve"]

_STATIC = resources.files(__package__).joinpath("static")
_MEDIA = {".js": "application/javascript", ".css": "text/css"}


class Action(BaseModel):
    """The body of ``POST /api/act``."""

    action: StrictInt


class NewGame(BaseModel):
    """The body of ``POST /api/new``."""

    seed: StrictInt | None = None


def create_app(session: GameSession) -> FastAPI:
    """The FastAPI app that serves ``session`` (see the module docstring for the routes)."""
    app = FastAPI(title="risk_env", docs_url=None, redoc_url=None, openapi_url=None)
    files = {name: _STATIC.joinpath(name).read_text(encoding="utf-8") for name in ("index.html", "play.js", "play.css")}
    files["board.js"] = BOARD_JS
    lock = session.lock

    def refuse(e: RiskError) -> HTTPException:
        return HTTPException(status_code=409, detail=str(e))

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return files["index.html"]

    @app.get("/static/{name}")
    def static(name: str) -> Response:
        if name not in files or name == "index.html":
            raise HTTPException(status_code=404, detail=f"no file {name!r}")
        return Response(files[name], media_type=_MEDIA[os.path.splitext(name)[1]])

    @app.get("/api/game")
    def game() -> dict[str, Any]:
        with lock:
            return session.view(board=True)

    @app.post("/api/act")
    def act(body: Action) -> dict[str, Any]:
        with lock:
            try:
                return session.act(body.action)
            except RiskError as e:
                raise refuse(e) from None

    @app.post("/api/new")
    def new(body: NewGame = Body(default_factory=NewGame)) -> dict[str, Any]:  # noqa: B008 - FastAPI's idiom
        with lock:
            try:
                session.new_game(body.seed)
            except RiskError as e:
                raise refuse(e) from None
            return session.view(board=True)

    @app.get("/api/record")
    def record() -> JSONResponse:
        with lock:
            try:
                rec = session.finished_record()
            except RiskError as e:
                raise refuse(e) from None
        name = f"risk_game_seed{rec.seed}.json"
        return JSONResponse(rec.to_dict(), headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @app.post("/api/save")
    def save() -> dict[str, Any]:
        with lock:
            try:
                session.finished_record()  # the game must be over
                return {"path": str(session.save())}
            except RiskError as e:
                raise refuse(e) from None

    return app


def bind(host: str = "127.0.0.1", port: int = 8000) -> socket.socket:
    """A listening socket on ``host:port`` (``port`` 0: a free port).

    Raises:
        OSError: the address is taken or cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def serve(session: GameSession, host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False, out: Any = None) -> None:
    """Serve ``session`` until interrupted (Ctrl+C, or SIGTERM), then return: prints the address, and opens it in
    the default browser with ``open_browser``.

    Raises:
        MissingExtraError: uvicorn is missing (``pip install 'risk_env[web]'``).
        OSError: the address cannot be bound (e.g. the port is taken).
    """
    uvicorn = require("uvicorn", "web", "the web app (risk-env serve)")
    out = out or sys.stdout
    sock = bind(host, port)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    print(f"risk_env: playing at {url}  (Ctrl+C to stop)", file=out, flush=True)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    server = uvicorn.Server(uvicorn.Config(create_app(session), log_level="warning"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn shuts down on Ctrl+C, then passes the signal on: that is how one stops
        pass
    finally:
        sock.close()
