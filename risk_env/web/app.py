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

Only this machine's pages may drive it: a request whose ``Host`` is not the address served (``127.0.0.1``,
``localhost`` or ``::1`` for a local address; any host when serving every interface, ``0.0.0.0`` or ``::``) is
refused with 400 (a page of another site that rebinds its name to this machine cannot read the game), and a
``POST`` from a page of another origin (its ``Origin`` header) is refused with 403 (another site's form cannot
start a new game or play a move). The host is read as a URL's (``[::1]:8000`` is ``::1``): Starlette's
``TrustedHostMiddleware`` of the versions this package allows cuts ``[::1]:8000`` at its first colon, so it would
refuse the page served on ``::1``.

Bad input gets a clear error: a body that is not ``{"action": integer}`` (or ``{"seed": integer >= 0}``), with no
other field, is refused with 422 and ``{"detail": why}`` in one line naming the field, what it got and the body
allowed (also for numbers JSON cannot hold, such as ``1e400`` or ``NaN``, which the framework's own answer could not
encode: a 500; for a body the JSON reader gives up on, too deep or with a number too long; and for a body not sent as
JSON), a
legal-looking id that the env refuses with 409 and the env's own message; either way the game is unchanged.
"""

from __future__ import annotations

import ipaddress
import json
import os
import signal
import socket
import sys
import threading
import webbrowser
from collections.abc import Awaitable, Callable, Sequence
from importlib import resources
from typing import Annotated, Any
from urllib.parse import urlsplit

from .._extras import require
from ..errors import RiskError
from ..records.svg import BOARD_JS
from .session import GameSession

require("fastapi", "web", "the web app (risk-env serve)")

from fastapi import Body, FastAPI, HTTPException, Request  # noqa: E402
from fastapi.exception_handlers import http_exception_handler  # noqa: E402
from fastapi.exceptions import RequestValidationError  # noqa: E402
from fastapi.responses import HTMLResponse, JSONResponse, Response  # noqa: E402
from pydantic import BaseModel, ConfigDict, Field, StrictInt  # noqa: E402
from starlette.exceptions import HTTPException as StarletteHTTPException  # noqa: E402

__all__ = ["create_app", "serve"]

_STATIC = resources.files(__package__).joinpath("static")
_MEDIA = {".js": "application/javascript", ".css": "text/css"}


class Action(BaseModel):
    """The body of ``POST /api/act`` (no other field)."""

    model_config = ConfigDict(extra="forbid")
    action: StrictInt


class NewGame(BaseModel):
    """The body of ``POST /api/new`` (no other field)."""

    model_config = ConfigDict(extra="forbid")
    seed: Annotated[StrictInt, Field(ge=0)] | None = None


_BODIES = {"/api/act": '{"action": <integer id>}', "/api/new": '{"seed": <integer, 0 or more>} or {}'}
"""The body each route takes, as its refusals name it."""


def _shown(value: Any) -> str:
    """A value of a request body as JSON writes it (``Infinity``, ``NaN``, ``"3"``), cut to 60 characters."""
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def validation_detail(path: str, errors: Any) -> str:
    """One line for the framework's refusal of a request body (its ``errors()``): each field, what it got and
    why, then the body the route takes. Plain text: an input JSON cannot hold (``1e400`` read as infinity) is
    shown, not encoded (the framework's own answer failed on it, a 500)."""
    parts = []
    for error in errors:
        loc = [str(x) for x in error.get("loc", ()) if x != "body"]
        kind = error.get("type", "")
        if kind == "json_invalid":
            why = (error.get("ctx") or {}).get("error", error.get("msg", "not JSON"))
            parts.append(f"the body is not JSON: {why}" + (f" at character {loc[0]}" if loc else ""))
            continue
        where = ".".join(loc) or "the body"
        message = str(error.get("msg", "invalid")).rstrip(".")
        message = message[0].lower() + message[1:] if message[:1].isupper() and message[1:2].islower() else message
        if isinstance(error.get("input"), (bytes, bytearray)):  # (a body of another content type: not read as JSON)
            parts.append("the body is not JSON: send it as JSON, with Content-Type: application/json")
            continue
        if kind == "missing":
            parts.append(f"{where} is required")
        else:
            parts.append(f"{where}: {message}, got {_shown(error.get('input'))}")
    body = _BODIES.get(path)
    return "; ".join(parts) + (f" (the body is {body})" if body else "")


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
"""The host names a locally served app answers to (:func:`served_hosts`)."""


def served_hosts(host: str) -> list[str]:
    """The host names (a ``Host`` header's, without its port) the app served on ``host`` answers to: any
    (``["*"]``) for every interface (``0.0.0.0``, ``::``, ``0``, ``""``, any unspecified address), else ``host`` and
    this machine's names (:data:`LOCAL_HOSTS`).

    >>> served_hosts("127.0.0.1")
    ['127.0.0.1', 'localhost', '::1']
    >>> served_hosts("::0"), served_hosts("[::1]")
    (['*'], ['127.0.0.1', 'localhost', '::1'])
    """
    name = host.strip("[]").lower()
    try:
        every = name in ("", "0") or ipaddress.ip_address(name).is_unspecified
    except ValueError:  # (a name, not an address)
        every = False
    return ["*"] if every else list(dict.fromkeys([*LOCAL_HOSTS, name]))


def host_name(header: str | None) -> str | None:
    """The host name of a ``Host`` header (``"[::1]:8000"`` -> ``"::1"``, ``"LocalHost:80"`` -> ``"localhost"``), or
    None for one that is missing or does not read.

    >>> host_name("[::1]:8000"), host_name("127.0.0.1:8000"), host_name("[::1")
    ('::1', '127.0.0.1', None)
    """
    if not header:
        return None
    try:
        return urlsplit("//" + header).hostname
    except ValueError:
        return None


def create_app(session: GameSession, hosts: Sequence[str] = LOCAL_HOSTS) -> FastAPI:
    """The FastAPI app that serves ``session`` (see the module docstring for the routes).

    Args:
        session: the game it serves.
        hosts: the host names it answers to (:func:`served_hosts`; ``["*"]`` for any); a request of another ``Host``
            gets 400.
    """
    app = FastAPI(title="risk_env", docs_url=None, redoc_url=None, openapi_url=None)
    allowed = {h.strip("[]").lower() for h in hosts}

    @app.middleware("http")
    async def this_machine(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        host = request.headers.get("host")
        if "*" not in allowed and host_name(host) not in allowed:
            return JSONResponse({"detail": f"host {host!r} is not served here"}, status_code=400)
        origin = request.headers.get("origin")
        if request.method not in ("GET", "HEAD") and origin is not None:
            if urlsplit(origin).netloc.lower() != (host or "").lower():
                return JSONResponse({"detail": f"a request from another site ({origin}) is refused"}, status_code=403)
        return await call_next(request)

    files = {name: _STATIC.joinpath(name).read_text(encoding="utf-8") for name in ("index.html", "play.js", "play.css")}
    files["board.js"] = BOARD_JS
    lock = session.lock

    def refuse(e: RiskError) -> HTTPException:
        return HTTPException(status_code=409, detail=str(e))

    @app.exception_handler(RequestValidationError)
    def invalid_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_detail(request.url.path, exc.errors())}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def unread_body(request: Request, exc: StarletteHTTPException) -> Response:
        path = request.url.path
        if exc.status_code == 400 and path in _BODIES:  # a body the JSON reader gave up on (too deep, a huge number)
            return JSONResponse({"detail": f"the body is not JSON that can be read (the body is {_BODIES[path]})"}, 422)
        return await http_exception_handler(request, exc)

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
    def new(body: NewGame = Body(default_factory=lambda: NewGame())) -> dict[str, Any]:  # noqa: B008 - FastAPI's idiom
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
    server = uvicorn.Server(uvicorn.Config(create_app(session, served_hosts(host)), log_level="warning"))
    # uvicorn shuts down on Ctrl+C or SIGTERM, then raises the signal again under the handler it found: SIGINT's
    # is KeyboardInterrupt; SIGTERM's default would end the process before the caller writes its record
    main = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, _stopped) if main else None
    try:
        server.run(sockets=[sock])
    except (KeyboardInterrupt, _Stopped):
        pass
    finally:
        if main:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if before is None else before)
        sock.close()


class _Stopped(Exception):
    """SIGTERM arrived (after uvicorn's shutdown): :func:`serve` returns."""


def _stopped(signum: int, frame: Any) -> None:
    raise _Stopped
