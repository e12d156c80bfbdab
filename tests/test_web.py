"""The web app's game (risk_env.web.session) and its JSON API (risk_env.web.app) without a browser: the
person's choices are exactly the env's legal ids, illegal input changes nothing, what the page gets is what the
person's seat may know (no seed, no other seat's cards or mission), the record is the person's once the game is
over, and a game played through the API is a record that replays. In a real browser: tests/test_browser.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import give_cards, run_cli

from risk_env.errors import ConfigError, IllegalActionError, RiskError, StateError
from risk_env.records.record import GameRecord
from risk_env.records.recorder import fresh_seed
from risk_env.rules.config import resolve_rules
from risk_env.rules.missions import MISSIONS, mission_text
from risk_env.web.session import RECORD_WHEN_OVER, SYMBOL_NAMES, GameSession

ROOT = Path(__file__).resolve().parent.parent


def small(num_players: int = 2, **rules: object):  # type: ignore[no-untyped-def]
    return resolve_rules("classic", num_players=num_players, **{"map": "small", "setup": "random", "turn_limit": 8, **rules})


def _choices(view: dict) -> list[int]:
    d = view["decision"]
    return sorted([c["action"] for c in d["territories"]] + [c["action"] for c in d["buttons"]])


def _play_out(session: GameSession, seed: int = 0) -> dict:
    """Play the person's seat with random legal ids until the game ends; returns the last view."""
    rng = np.random.default_rng(seed)
    view = session.view()
    while not view["over"]:
        view = session.act(int(rng.choice(_choices(view))))
    return view


def _cards_in(data: object) -> list[int]:
    """Every card id that ``data`` (a view) lists as a card (a dict with a ``card`` key), anywhere in it."""
    if isinstance(data, dict):
        return ([data["card"]] if "card" in data else []) + [c for v in data.values() for c in _cards_in(v)]
    if isinstance(data, list):
        return [c for v in data for c in _cards_in(v)]
    return []


def test_the_choices_are_the_env_mask() -> None:
    session = GameSession(small(3), seat=1, agents=["random", "aggressive"], seed=5)
    rng = np.random.default_rng(0)
    for _ in range(60):
        view = session.view()
        if view["over"]:
            break
        raw = session.raw
        assert raw.agent_selection == "player_1"
        mask = raw.observe("player_1")["action_mask"]
        assert _choices(view) == [int(a) for a in np.flatnonzero(mask)]
        for c in view["decision"]["territories"]:
            assert c["t"] == c["action"] and c["label"] == raw.action_to_string("player_1", c["action"])
        session.act(int(rng.choice(_choices(view))))


def test_illegal_input_is_refused_and_changes_nothing() -> None:
    session = GameSession(small(2), seat=0, agents=["random"], seed=2)
    view = session.view()
    legal = set(_choices(view))
    bad = next(a for a in range(session.raw.codec.n) if a not in legal)
    before = session.state.copy(), session.raw.selection.copy(), len(session.record().actions or [])
    for action in (bad, -1, session.raw.codec.n, True, 2.0, "3"):
        with pytest.raises(IllegalActionError):
            session.act(action)
    assert (session.state, session.raw.selection, len(session.record().actions or [])) == before
    with pytest.raises(ConfigError, match="seat must be 0..1"):
        GameSession(small(2), seat=2)
    with pytest.raises(ConfigError, match="one agent for every other seat"):
        GameSession(small(4), seat=0, agents=["random", "random"])
    with pytest.raises(RiskError, match="unknown agent 'nobody'"):
        GameSession(small(2), agents=["nobody"])
    for rules, why in (
        ({"num_players": 2, "fortify": "teleport"}, "teleport"),
        ("no-such-preset", "no-such-preset"),
        (7, "got int"),
    ):
        with pytest.raises(ConfigError, match=why):
            GameSession(rules)  # type: ignore[arg-type]
    plain = GameSession({"num_players": 2, "map": "small", "setup": "random", "turn_limit": 4}, seed=3)
    assert plain.game.config == small(2, turn_limit=4)
    for seed in (-1, True, 2.0, "3"):
        with pytest.raises(ConfigError, match="seed must be None or an integer >= 0"):
            GameSession(small(2), seed=seed)  # type: ignore[arg-type]
    before = session.state.copy(), session.seed
    with pytest.raises(ConfigError, match="seed must be None or an integer >= 0, got -4"):
        session.new_game(-4)
    assert (session.state, session.seed) == before


def test_the_person_sees_only_their_own_cards_and_mission() -> None:
    rules = resolve_rules("classic", num_players=3, setup="random", turn_limit=3, secret_missions=True)
    session = GameSession(rules, seat=0, agents=["balanced"], seed=11)
    s = session.state
    give_cards(s, 0, [0, 13, 43])  # Alaska, a card of South America's or Europe's, a wild card
    give_cards(s, 1, [5, 6])
    view = session.view()
    names = [session.game.map.card_name(c) for c in (0, 13, 43)]
    assert [c["name"] for c in view["hand"]] == names and view["hand"][2]["symbol"] == "wild"
    assert [c["symbol"] for c in view["hand"][:2]] == [SYMBOL_NAMES[session.game.card_symbol[c]] for c in (0, 13)]
    # the others' cards are counts on the board's panel, nothing more
    assert [r["cards"] for r in view["frame"]["rows"]] == [str(len(h)) for h in s.hands]
    assert view["mission"] == mission_text(s.missions[0])
    text = json.dumps({k: v for k, v in view.items() if k != "mission"})
    for seat in (1, 2):  # no other seat's mission anywhere in what the page gets
        if mission_text(s.missions[seat]) != view["mission"]:
            assert mission_text(s.missions[seat]) not in text


def test_a_view_holds_only_what_the_seat_knows() -> None:
    """No seed (the dice to come and every card follow from it), no other seat's cards or mission: the page's
    replies are the same whatever the hidden parts of the position are."""
    rules = resolve_rules("classic", num_players=3, setup="random", turn_limit=3, secret_missions=True)
    seed = 987_654_321
    session = GameSession(rules, seat=0, agents=["balanced"], seed=seed)
    s = session.state
    give_cards(s, 0, [0, 13])
    give_cards(s, 1, [5, 6, 7])
    give_cards(s, 2, [20, 43])
    s.missions = [0, 3, 7]  # three different missions: any other seat's text would show
    texts = [MISSIONS[m].text for m in s.missions]
    assert len(set(texts)) == 3
    first = session.view(board=True)
    after = session.act(_choices(first)[0])
    for view in (first, after):
        assert "seed" not in view and "seed" not in json.dumps(view)
        assert str(seed) not in json.dumps(view)  # nor the agents' seeds (seed * 1000 + seat)
        assert _cards_in(view) == [c["card"] for c in view["hand"]]  # the only cards named are the person's own
        assert [r["cards"] for r in view["frame"]["rows"]] == [str(len(h)) for h in session.state.hands]  # counts
        text = json.dumps(view)
        assert texts[0] in text and texts[1] not in text and texts[2] not in text
    assert [c["card"] for c in first["hand"]] == [0, 13]
    # the hidden parts changed (the other hands, the draw pile, the other missions, the dice to come): the same view
    s = session.state
    session.view()  # hands out the moves made so far
    before = session.view(board=True)
    hidden = [*s.hands[1], *s.hands[2], *s.deck]
    hidden.reverse()
    s.hands[1], s.hands[2] = hidden[: len(s.hands[1])], hidden[len(s.hands[1]) : len(s.hands[1]) + len(s.hands[2])]
    s.deck = hidden[len(s.hands[1]) + len(s.hands[2]) :]
    s.missions = [s.missions[0], 9, 11]
    s.rng = np.random.default_rng(1)
    s.dice_buf, s.dice_pos = [6, 6, 6, 6, 6], 0
    assert session.view(board=True) == before
    # and the board the page draws is the engine's own picture of the position: nothing public is lost
    assert before["frame"] == session.board.frame(s, session.raw.last_move, selection=session.raw.selection)


def test_the_record_is_the_persons_once_the_game_is_over() -> None:
    session = GameSession(small(2), seat=0, agents=["aggressive"], seed=4)
    with pytest.raises(StateError, match="the record is available when the game ends") as caught:
        session.finished_record()
    assert str(caught.value) == RECORD_WHEN_OVER
    assert session.record().seed == 4 and session.record().result["ended"] == "unfinished"  # the server's own
    view = _play_out(session, 4)
    rec = session.finished_record()
    assert view["over"] and rec.seed == 4 and rec.result["ended"] != "unfinished" and rec.final_state() == session.state


def test_a_session_without_a_seed_draws_a_fresh_one() -> None:
    a, b = GameSession(small(2)), GameSession(small(2))
    assert a.seed != b.seed and all(isinstance(x.seed, int) and 0 <= x.seed < 2**63 for x in (a, b))
    assert a.record().seed == a.seed  # the record holds it, so the game replays
    last = a.seed
    a.new_game()  # not the last seed + 1: nothing to guess from
    assert a.seed not in (last, last + 1) and a.record().seed == a.seed
    x, y = fresh_seed(), fresh_seed()
    assert x != y and 0 <= min(x, y) and max(x, y) < 2**63
    # an explicit seed replays a game: the same position, the same agents, the same page
    c, d = GameSession(small(2), agents=["balanced"], seed=7), GameSession(small(2), agents=["balanced"], seed=7)
    assert c.state == d.state and c.view(board=True) == d.view(board=True)
    c.act(_choices(c.view())[0])
    d.act(_choices(d.view())[0])
    assert c.state == d.state


def test_a_whole_game_through_the_session_is_a_record(tmp_path: Path) -> None:
    path = tmp_path / "games" / "g.json"
    session = GameSession(small(2), seat=0, agents=["aggressive"], seed=4, record=path)
    rng = np.random.default_rng(4)
    view = session.view()
    shown = list(view["events"])
    while not view["over"]:
        view = session.act(int(rng.choice(_choices(view))))  # what the page gets: the moves since, the board now
        shown += view["events"]
        assert view["frame"]["owner"] == [int(o) for o in session.state.owner]
        assert view["frame"]["armies"] == [int(a) for a in session.state.armies]
    assert session.view()["events"] == []  # each move is handed out once
    assert view["over"] and view["decision"] is None and view["result"] and view["record"] == str(path)
    rec = GameRecord.load(path)  # validates: every move and action id replays
    assert rec.final_state() == session.state and rec.players == ["human", "aggressive"]
    assert [e["text"] for e in shown] == rec.moves and [e["k"] for e in shown] == list(range(1, len(rec.moves) + 1))
    rolls = [e for e in shown if e["text"].startswith(("attack", "blitz"))]
    assert rolls and all(e["dice"] and 1 <= len(e["dice"]["attacker"]) <= 3 for e in rolls)
    with pytest.raises(IllegalActionError, match="the game is over"):
        session.act(_choices({"decision": {"territories": [], "buttons": [{"action": 0}]}})[0])
    # the next game: a fresh seed (not shown), a history of its own moves only
    nxt = session.new_game()
    assert "seed" not in nxt and session.seed != 4 and session.record().seed == session.seed
    assert not nxt["over"] and nxt["moves"] == session.state.steps == len(session.history)
    assert [e["k"] for e in session.history] == list(range(1, len(session.history) + 1))


def test_the_prompt_offers_a_trade_only_when_one_is_legal() -> None:
    session = GameSession(small(2), seat=0, agents=["random"], seed=2)
    s = session.state
    assert s.phase.name == "REINFORCE" and s.hands[0] == []
    prompt = session.decision()["prompt"]  # type: ignore[index]
    assert prompt == f"Place {s.to_place} armies: click one of your territories."  # it said ", or trade cards."
    give_cards(s, 0, [0, 1, 2])  # a set of the three symbols on the small map's deck
    d = session.decision()
    assert any(b["label"].startswith("trade") for b in d["buttons"])  # type: ignore[index]
    assert d["prompt"] == f"Place {s.to_place} armies: click one of your territories, or trade cards."  # type: ignore[index]


def test_the_moves_speak_of_the_person_in_the_third_person() -> None:
    rules = resolve_rules("classic", num_players=2, map="small", setup="random", turn_limit=30, two_player="none")
    session = GameSession(rules, seat=0, agents=["aggressive"], seed=0)
    rng = np.random.default_rng(0)
    view = session.view()
    while not view["over"]:
        view = session.act(int(rng.choice(_choices(view))))
    assert session.history[-1]["note"].endswith("player_0 (you) is eliminated; aggressive wins")  # was "you is eliminated"
    assert session.history[-1]["who"] == "aggressive"


def test_each_game_of_a_session_has_its_own_record_file(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    session = GameSession(small(2), seat=0, agents=["aggressive"], seed=4, record=path)
    rng = np.random.default_rng(4)
    view = session.view()
    while not view["over"]:
        view = session.act(int(rng.choice(_choices(view))))
    assert view["record"] == str(path)
    first = GameRecord.load(path)
    session.new_game(seed=5)  # a game whose first action completes a move: it has something to write
    session.act(_choices(session.view())[0])
    session.new_game(seed=9)  # the unfinished second game is written, beside the first (the server's file)
    second = GameRecord.load(tmp_path / "game_2.json")
    assert GameRecord.load(path) == first and first.result["ended"] != "unfinished"  # the first game is still there
    assert second.seed == 5 and second.result["ended"] == "unfinished"
    assert session.save() == tmp_path / "game_3.json" and GameRecord.load(tmp_path / "game_3.json").seed == 9


def test_a_game_left_before_any_move_leaves_no_gap_in_the_numbered_records(tmp_path: Path) -> None:
    """It was not written, and the next game took the number after it: game_3.json with no game_2.json."""
    path = tmp_path / "game.json"
    session = GameSession(small(2), seat=0, agents=["aggressive"], seed=3, record=path)
    assert session.history  # (seed 3: the agent moves first)
    session.new_game(seed=0)  # the first game is written
    assert not session.history  # (seed 0: the person moves first)
    session.new_game(seed=3)  # the second game, with no move, is not written: the third takes its file
    assert session.record_target == tmp_path / "game_2.json"
    session.new_game(seed=9)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "game_2.json"]
    assert GameRecord.load(tmp_path / "game_2.json").seed == 3 and session.record_target == tmp_path / "game_3.json"


# ---------------------------------------------------------------------- the JSON API
@pytest.fixture()
def client(tmp_path: Path):  # type: ignore[no-untyped-def]
    pytest.importorskip("fastapi", reason="the web app needs fastapi (the web extra)")
    pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2 (the dev extra)")
    from fastapi.testclient import TestClient

    from risk_env.web.app import create_app

    session = GameSession(small(2), seat=0, agents=["random"], seed=3, record=tmp_path / "rec.json")
    with TestClient(create_app(session), base_url="http://127.0.0.1:8000") as c:
        c.session = session  # type: ignore[attr-defined]
        yield c


def test_the_api(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/")
    assert page.status_code == 200 and '<section id="board"' in page.text and "/static/play.js" in page.text
    for name, kind in (("board.js", "javascript"), ("play.js", "javascript"), ("play.css", "css")):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and kind in r.headers["content-type"]
    assert client.get("/static/nothing.js").status_code == 404
    game = client.get("/api/game").json()
    assert game["svg"].startswith("<svg") and game["decision"]["prompt"]
    legal = _choices(game)
    bad = next(a for a in range(client.session.raw.codec.n) if a not in legal)
    r = client.post("/api/act", json={"action": bad})
    assert r.status_code == 409 and "is illegal" in r.json()["detail"] and "Legal ids" in r.json()["detail"]
    for body in ({"action": "3"}, {"action": True}, {"action": 1.5}, {}, {"move": 1}):
        assert client.post("/api/act", json=body).status_code == 422, body
    r = client.post("/api/act", json={"action": legal[0]})
    assert r.status_code == 200 and r.json()["moves"] >= 0 and "seed" not in r.json()
    new = client.post("/api/new", json={"seed": 9}).json()
    assert "seed" not in new and client.session.seed == 9
    assert [e["k"] for e in new["history"]] == list(range(1, new["moves"] + 1))
    before = client.session.state.copy()
    assert client.post("/api/new", json={"seed": -2}).status_code == 422 and client.session.state == before
    assert client.post("/api/new").status_code == 200 and client.session.seed != 9  # no body: a fresh seed


@pytest.mark.parametrize(
    "path,body,detail",
    [
        (
            "/api/new",
            '{"seed": 1e400}',
            'seed: input should be a valid integer, got Infinity (the body is {"seed": <integer, 0 or more>} or {})',
        ),
        (
            "/api/act",
            '{"action": 1e400}',
            'action: input should be a valid integer, got Infinity (the body is {"action": <integer id>})',
        ),
        (
            "/api/act",
            '{"action": NaN}',
            'action: input should be a valid integer, got NaN (the body is {"action": <integer id>})',
        ),
        (
            "/api/act",
            '{"action": -Infinity}',
            'action: input should be a valid integer, got -Infinity (the body is {"action": <integer id>})',
        ),
        (
            "/api/new",
            "[1e400]",
            "the body: input should be a valid dictionary or object to extract fields from, got [Infinity] "
            '(the body is {"seed": <integer, 0 or more>} or {})',
        ),
        (
            "/api/act",
            '{"action": "3"}',
            'action: input should be a valid integer, got "3" (the body is {"action": <integer id>})',
        ),
        (
            "/api/act",
            '{"move": 1}',
            'action is required; move: extra inputs are not permitted, got 1 (the body is {"action": <integer id>})',
        ),
        (  # (a field besides the action was let through without a word)
            "/api/act",
            '{"action": 0, "extra": 1}',
            'extra: extra inputs are not permitted, got 1 (the body is {"action": <integer id>})',
        ),
        (  # (was a 409 from the session)
            "/api/new",
            '{"seed": -1}',
            'seed: input should be greater than or equal to 0, got -1 (the body is {"seed": <integer, 0 or more>} or {})',
        ),
        (  # (the framework's 400 "There was an error parsing the body")
            "/api/act",
            "[" * 100_000,
            'the body is not JSON that can be read (the body is {"action": <integer id>})',
        ),
        (
            "/api/act",
            '{"action": ' + "1" * 5000 + "}",
            'the body is not JSON that can be read (the body is {"action": <integer id>})',
        ),
        (
            "/api/act",
            '{"action": 1',
            "the body is not JSON: Expecting ',' delimiter at character 12 (the body is {\"action\": <integer id>})",
        ),
    ],
)
def test_a_body_the_api_refuses_is_one_line_even_with_numbers_json_cannot_hold(client, path, body, detail) -> None:  # type: ignore[no-untyped-def]
    """``{"seed": 1e400}`` (and ``{"action": NaN}``) answered 500: the framework's 422 could not encode the infinity it
    read (ValueError: Out of range float values are not JSON compliant). Now every refused body is a 422 naming the
    field, what it got and the body the route takes; the game is unchanged."""
    before = client.session.state.copy(), client.session.seed
    r = client.post(path, content=body, headers={"content-type": "application/json"})
    assert (r.status_code, r.json()) == (422, {"detail": detail})
    assert (client.session.state, client.session.seed) == before


@pytest.mark.parametrize(
    "bind, page, answered",
    [
        ("::1", "http://[::1]:8000", True),  # (Starlette's TrustedHostMiddleware of the allowed versions refused it)
        ("127.0.0.1", "http://localhost:8000", True),
        ("127.0.0.1", "http://192.168.1.9:8000", False),
        ("::0", "http://192.168.1.9:8000", True),  # every interface, however spelled
        ("0", "http://192.168.1.9:8000", True),
        ("0.0.0.0", "http://evil.example", True),
    ],
)
def test_the_hosts_served(bind: str, page: str, answered: bool) -> None:
    pytest.importorskip("fastapi", reason="the web app needs fastapi (the web extra)")
    pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2 (the dev extra)")
    from fastapi.testclient import TestClient

    from risk_env.web.app import create_app, served_hosts

    session = GameSession(small(2), seat=0, agents=["random"], seed=3)
    c = TestClient(create_app(session, served_hosts(bind)), base_url=page)
    got = c.get("/api/game").status_code, c.post("/api/new", json={}, headers={"Origin": page}).status_code
    assert got == ((200, 200) if answered else (400, 400))
    if answered:
        assert c.post("/api/new", json={}, headers={"Origin": "http://evil.example:1"}).status_code == 403


def test_a_body_of_another_content_type_is_told_to_be_json(client) -> None:  # type: ignore[no-untyped-def]
    """A text/plain body was refused with the bytes' Python repr; the refusal now says what to send."""
    r = client.post("/api/act", content=b'{"action": 0}', headers={"content-type": "text/plain"})
    assert (r.status_code, r.json()["detail"]) == (
        422,
        'the body is not JSON: send it as JSON, with Content-Type: application/json (the body is {"action": <integer id>})',
    )
    assert client.get("/api/nowhere").status_code == 404  # (other errors keep the framework's answer)


def test_the_api_gives_the_record_once_the_game_is_over(client) -> None:  # type: ignore[no-untyped-def]
    session = client.session
    game = client.get("/api/game").json()
    assert "seed" not in game
    for r in (client.get("/api/record"), client.post("/api/save")):  # the record holds the seed: not while on
        assert r.status_code == 409 and r.json() == {"detail": RECORD_WHEN_OVER}
    assert session.saved is None and not session.record_target.exists()  # type: ignore[union-attr]
    rng = np.random.default_rng(3)
    while not game["over"]:
        r = client.post("/api/act", json={"action": int(rng.choice(_choices(game)))})
        assert r.status_code == 200 and "seed" not in r.json()
        game = r.json()
    rec = client.get("/api/record")
    assert rec.status_code == 200 and 'filename="risk_game_seed3.json"' in rec.headers["content-disposition"]
    got = GameRecord.from_dict(rec.json())
    assert got.seed == 3 and got.result["ended"] != "unfinished" and got.final_state() == session.state
    saved = client.post("/api/save")
    assert saved.status_code == 200 and GameRecord.load(saved.json()["path"]) == got


# ---------------------------------------------------------------------- risk-env serve
def test_serve_refuses_bad_options_before_serving(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the web app needs fastapi (the web extra)")
    cases = [
        (["--port", "70000"], "error: --port must be 0..65535, got 70000\n"),
        (["--seed", "-1"], "error: --seed must be 0 or more, got -1\n"),
        (["--turns", "0"], "error: --turns must be 1 or more, got 0\n"),
    ]
    for args, message in cases:
        code, out, err = run_cli("serve", "--no-open", *args)
        assert (code, out, err) == (2, "", message), args
    code, _, err = run_cli("serve", "--no-open", "-n", "2", "--seat", "2")
    assert code == 2 and "--seat must be from 0 to 1" in err
    code, _, err = run_cli("serve", "--no-open", "-n", "2", "--agents", "nobody")
    assert code == 2 and "unknown agent 'nobody'" in err
    code, _, err = run_cli("serve", "--no-open", "-n", "3", "--agents", "random,random,random")
    assert code == 2 and "exactly 2 (one per seat)" in err


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_serve_serves_a_game_until_ctrl_c_or_sigterm(tmp_path: Path, stop: str) -> None:
    """Served on 127.0.0.1: the page's requests are answered, another site's are refused with the game unchanged;
    Ctrl+C or SIGTERM (systemd, docker, ``timeout``) stops it, and the unfinished game's record is written (SIGTERM's
    default action used to end the process before)."""
    pytest.importorskip("fastapi", reason="the web app needs fastapi (the web extra)")
    pytest.importorskip("uvicorn", reason="the web app needs uvicorn (the web extra)")
    import signal
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    record = tmp_path / "served.json"
    args = ["--port", "0", "--no-open", "-n", "2", "--map", "small", "--turns", "6", "--agents", "balanced"]
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "serve.py"), *args, "--record", str(record), "--seed", "8"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        seats = proc.stdout.readline()  # type: ignore[union-attr]
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert seats.startswith("seats: player_0 = you, player_1 = balanced"), seats
        assert line.startswith("risk_env: playing at http://127.0.0.1:"), line
        url = line.split()[3]
        game = json.loads(urllib.request.urlopen(url + "api/game", timeout=30).read())
        assert "seed" not in game and game["players"] == ["you", "balanced"] and game["decision"]["prompt"]
        with pytest.raises(urllib.error.HTTPError) as refused:  # the record (and its seed) waits for the end
            urllib.request.urlopen(url + "api/record", timeout=30)
        assert refused.value.code == 409 and json.loads(refused.value.read()) == {"detail": RECORD_WHEN_OVER}
        action = _choices(game)[0]
        req = urllib.request.Request(
            url + "api/act", data=json.dumps({"action": action}).encode(), headers={"Content-Type": "application/json"}
        )
        after = json.loads(urllib.request.urlopen(req, timeout=30).read())
        assert after["moves"] >= game["moves"]
        page = urllib.request.urlopen(url, timeout=30).read().decode()
        assert "<title>Risk: play against agents</title>" in page
        for req, code in [  # a page of another site: its name rebound to this machine, or its form
            (urllib.request.Request(url + "api/game", headers={"Host": "evil.example"}), 400),
            (urllib.request.Request(url + "api/new", data=b"", headers={"Origin": "http://evil.example"}), 403),
        ]:
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(req, timeout=30)
            assert refused.value.code == code
        assert json.loads(urllib.request.urlopen(url + "api/game", timeout=30).read())["moves"] == after["moves"]
    finally:
        proc.send_signal(getattr(signal, stop))
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert f"record written to {record}" in out
    rec = GameRecord.load(record)
    assert rec.result["ended"] == "unfinished" and rec.seed == 8 and rec.actions and action in rec.actions


def test_an_agents_illegal_choice_tells_the_person_nothing_of_its_hand() -> None:
    """The env's refusal lists the agent's legal ids, and a forced trade's ids name what its cards make up: the
    person (the 409 of ``POST /api/act``) gets the agent and the id it chose, nothing of its legal ids."""

    class Stubborn:
        name = "stubborn"

        def act(self, observation, info) -> int:  # type: ignore[no-untyped-def]
            return int(np.flatnonzero(info["action_mask"] == 0)[0])  # always an id the mask forbids

    rules = resolve_rules("classic", num_players=2, setup="random", turn_limit=20)
    game = GameSession(rules, agents=["random"], seed=0).game
    seed = next(k for k in range(50) if game.current_player(game.new_game(k)) == 0)  # the person moves first
    session = GameSession(rules, seat=0, agents=[Stubborn()], seed=seed)
    s = session.state
    give_cards(s, 1, [0, 1, 2, 3, 4])  # five cards: its turn opens with a forced trade, the only legal ids
    with pytest.raises(RiskError) as refused:
        _play_out(session)
    message = str(refused.value)
    assert message.startswith("agent 'stubborn' (player_1) chose the illegal action id ")
    assert "trade" not in message and "Legal ids" not in message
    assert "Legal ids" in str(refused.value.__cause__) and "trade" in str(refused.value.__cause__)  # the server's


def test_rules_the_map_cannot_play_are_refused_before_an_agent_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading a model agent re-seeds the process's generators (SB3): a refused session must not get that far."""
    import risk_env.web.session as web_session

    loaded: list[object] = []
    monkeypatch.setattr(web_session, "load_agent", lambda spec, seed=None: loaded.append(spec))
    with pytest.raises(ConfigError, match="secret_missions=True needs a map with the classic continents"):
        GameSession({"num_players": 2, "map": "small", "secret_missions": True}, agents=["ppo-2p-0.1"])
    assert loaded == []


ALLIED = 2  # the allied army's owner id in a 2-player game (docs/rules.md §7)
ALLIED_LAND = ["Siam", "Indonesia", "New Guinea", "Western Australia", "Eastern Australia", "Egypt"]
MINE = ["China", "India", "Mongolia", "Japan", "Alaska", "Peru"]  # the person's (seat 0); the rest player 1's


def _allied_session(**fields: int) -> GameSession:
    """The person (seat 0) commands the allied army in player 1's turn: a hand-built position (``fields``: the
    state's phase, player, ... as :func:`helpers.build` takes them), played on by the session's env."""
    from helpers import build

    from risk_env.rules.state import Phase

    rules = resolve_rules("allied", setup="random", defender_dice="choose")
    game = GameSession(rules, agents=["random"], seed=0).game
    owners = {**{t: 0 for t in MINE}, **{t: ALLIED for t in ALLIED_LAND}}
    commander, player = fields.pop("commander", 0), fields.pop("player")
    s = build(game, owners=owners, default_owner=1, armies={t: 3 for t in ALLIED_LAND}, **{"phase": Phase.REINFORCE, **fields})
    s.player, s.commander, s.received = player, commander, 2 * s.to_place
    session = GameSession(rules, seat=0, agents=["random"], seed=0)
    session.env.reset(options={"state": s})
    return session


def test_the_person_commanding_the_allied_army_is_asked_for_the_territories_they_command() -> None:
    """The allied army's sub-turn (docs/rules.md §7): the territories to click are the allied army's, which the
    person commands, not theirs; one army is one army."""
    from risk_env.rules.state import Phase

    session = _allied_session(player=ALLIED, to_place=1)
    name = session.game.map.name_of
    d = session.decision()
    assert d is not None and d["prompt"] == "Place 1 army for the allied army: click one of the territories you command."
    assert sorted(name(c["t"]) for c in d["territories"]) == sorted(ALLIED_LAND)  # what the prompt calls so

    session = _allied_session(player=ALLIED, phase=Phase.ATTACK)
    d = session.decision()
    assert d is not None and d["prompt"] == (
        "Attack for the allied army: click one of the territories you command to attack from, or end the attack."
    )
    assert {name(c["t"]) for c in d["territories"]} <= set(ALLIED_LAND)

    session = _allied_session(player=ALLIED, phase=Phase.ATTACK)
    s, where = session.state, session.game.map.id_of
    s.owner[where("Middle East")], s.armies[where("Middle East")] = ALLIED, 2  # conquered from Egypt with 2 dice
    s.armies[where("Egypt")] = 5
    s.phase, s.att_src, s.att_dst, s.att_dice = Phase.OCCUPY, where("Egypt"), where("Middle East"), 2
    session.env.reset(options={"state": s.copy()})
    d = session.decision()
    assert d is not None and d["prompt"] == "The allied army conquered Middle East: move in how many armies (2..6)?"

    # player 1 (on turn) attacks an allied territory: the player not attacking, the person, rolls for it (§7)
    session = _allied_session(player=1, phase=Phase.ATTACK, commander=-1)
    s, where = session.state, session.game.map.id_of
    s.armies[where("Middle East")] = 2
    s.phase, s.att_src, s.att_dst, s.att_dice = Phase.DEFEND, where("Middle East"), where("Egypt"), 1
    session.env.reset(options={"state": s.copy()})
    d = session.decision()
    assert d is not None and d["prompt"] == (
        "Egypt is attacked from Middle East with 1 die: defend it for the allied army with how many?"
    )

    # the person's own turn: their own territories, as before
    session = _allied_session(player=0, to_place=3, commander=-1)
    d = session.decision()
    assert d is not None and d["prompt"] == "Place 3 armies: click one of your territories."
    assert sorted(name(c["t"]) for c in d["territories"]) == sorted(MINE)


def test_a_variants_own_decision_is_asked_in_the_variants_words() -> None:
    """The capital phase (docs/rules.md §8): the capitals variant says what is asked (its decision_text hook),
    in the browser game's prompt, the terminal game's status line and a picture's headline."""
    from risk_env.records.picture import describe
    from risk_env.tools.play import human_screen

    rules = resolve_rules("classic", num_players=2, map="small", setup="random", capitals=True, two_player="none")
    game = GameSession(rules, agents=["random"], seed=0).game
    seed = next(k for k in range(50) if game.current_player(game.new_game(k)) == 0)  # the person chooses first
    session = GameSession(rules, seat=0, agents=["random"], seed=seed)
    s = session.state
    assert s.phase.name == "CAPITAL"
    d = session.decision()
    assert d is not None and d["prompt"] == "Choose your capital among your territories (holding every capital wins)."
    assert sorted(c["t"] for c in d["territories"]) == [int(t) for t in np.flatnonzero(s.owner == 0)]
    lines, _ = human_screen(session.game, s, 0)
    assert any("setup, capital: choose your capital among your territories (holding every capital wins)" in x for x in lines)
    assert describe(session.game, s).subtitle == "player_0 to act · choose a capital (\u2605)"


def test_a_waiting_roll_is_asked_in_the_expert_dice_rules_words() -> None:
    """A roll that waits (``die_to_six``, docs/rules.md §8): the prompt is the variant's, with the roll and only the
    options the rules leave; the picture's headline says so too."""
    from risk_env.records.picture import describe

    rules = small(2, die_to_six=True, two_player="none")
    session = GameSession(rules, seat=0, agents=["random"], seed=2)
    s = session.state.copy()
    s.phase, s.att_src, s.att_dst, s.att_dice, s.roll_pending = s.phase.ATTACK, 0, 1, 2, True
    s.owner[0], s.owner[1], s.armies[0], s.armies[1], s.player = 0, 1, 5, 2, 0
    s.last_roll, s.last_dice, s.to_place = [5, 3, 0, 6, 2], 2, 0
    session.env.reset(options={"state": s})
    d = session.decision()
    assert d is not None and d["prompt"] == "Your roll 5 3 against 6 2 waits: turn one into a six or keep it."
    assert describe(session.game, session.state).subtitle == "player_0 to act · re-roll, six or keep"


def test_session_inputs_are_taken_or_refused_before_anything_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """A single spec serves every other seat (a string is one spec, not its letters); a record that is not a path and
    a max_agent_steps that is not an integer >= 1 are ConfigErrors naming what is allowed, before an agent loads;
    ``rules=None`` is :func:`resolve_rules`'s defaults."""
    import risk_env.web.session as web_session
    from risk_env.agents import RandomAgent

    session = GameSession(small(3), agents="random", seed=1)
    assert session.labels == ["you", "random 1", "random 2"]
    assert [type(a).__name__ for a in session.agents.values()] == ["RandomAgent", "RandomAgent"]
    one = RandomAgent()
    assert list(GameSession(small(3), agents=one, seed=1).agents.values()) == [one, one]
    assert GameSession(None, agents="random", seed=1).rules == resolve_rules()  # the docs/rules.md 4-player game

    loaded: list[object] = []
    monkeypatch.setattr(web_session, "load_agent", lambda spec, seed=None: loaded.append(spec))
    for record in (123, "", b"game.json", ["game.json"]):
        with pytest.raises(ConfigError, match=r"record must be a file path \(a str or a path object\) or None, got "):
            GameSession(small(2), record=record)  # type: ignore[arg-type]
    for steps in (0, -3, 2.5, True, "100", None):
        with pytest.raises(ConfigError, match=rf"max_agent_steps must be an integer >= 1, got {steps!r}"):
            GameSession(small(2), max_agent_steps=steps)  # type: ignore[arg-type]
    assert loaded == []


def _stubborn_session(**kw: object) -> tuple[GameSession, dict]:
    """A session whose agent (player_1) always chooses an id its mask forbids, the person (player_0) first."""
    from helpers import StubbornAgent

    rules = small(2, turn_limit=20)
    game = GameSession(rules, agents=["random"], seed=0).game
    seed = next(k for k in range(50) if game.current_player(game.new_game(k)) == 0)
    session = GameSession(rules, seat=0, agents=[StubbornAgent()], seed=seed, **kw)  # type: ignore[arg-type]
    return session, session.view()


def test_an_agents_failure_ends_the_game_and_a_new_one_can_start(tmp_path: Path) -> None:
    """After the person's move the agent chooses an illegal id: the person's move stands, the game is over (stopped,
    with the agent and its id), its record says why and is written; nothing is asked of the person; New game plays."""
    path = tmp_path / "game.json"
    session, view = _stubborn_session(record=path)
    actions = []
    with pytest.raises(RiskError, match=r"^agent 'stubborn' \(player_1\) chose the illegal action id \d+") as failed:
        while True:  # the person's turn: placements (a territory, then an amount), attacks, ... until the agent's
            actions.append(_choices(view)[-1])
            view = session.act(actions[-1])
    why = str(failed.value)
    assert session.over and session.stopped == why
    after = session.view()
    assert after["over"] and after["decision"] is None and after["result"] == f"The game was stopped: {why}."
    assert after["events"] and {e["seat"] for e in after["events"]} == {0}  # the person's last move, which stands
    with pytest.raises(IllegalActionError, match="the game is over: start a new game"):
        session.act(actions[-1])
    rec = session.finished_record()  # the game is over: the person may have its record
    assert rec.result is not None and rec.result["ended"] == "illegal action by player_1"
    assert rec.actions == actions and rec.moves[-1] == session.history[-1]["text"] and session.history[-1]["seat"] == 0
    assert session.saved == path and GameRecord.load(path).result["ended"] == "illegal action by player_1"  # type: ignore[index]

    nxt = session.new_game(rec.seed)  # the same game again (the person first: the agent has not failed yet)
    assert not nxt["over"] and session.stopped is None and nxt["result"] == "" and nxt["decision"] is not None
    assert nxt["moves"] == 0 and session.record().result["ended"] == "unfinished"  # type: ignore[index]


@pytest.mark.parametrize(
    ("agent", "told", "ended"),
    [
        ("FailingAgent", r"failed \(ValueError\)", "agent error by player_1"),
        ("LeakyAgent", r"chose no action id \(no integer\)", "illegal action by player_1"),  # (its own refusal)
        ("WordAgent", r"chose no action id \(no integer\)", "illegal action by player_1"),  # (its wrapper's refusal)
        ("ListAgent", r"chose no action id \(no integer\)", "illegal action by player_1"),
    ],
)
def test_an_agent_that_raises_or_answers_no_integer_stops_the_game_not_the_server(
    agent: str, told: str, ended: str, tmp_path: Path
) -> None:
    """An agent's exception (or an answer that is no integer) stops the game as an illegal id does: a RiskError (the
    page's 409, not a 500 that left the game waiting on the agent for ever), the game over, its record written. The
    person gets the exception's type, not its message (an agent's text may name its cards)."""
    import helpers
    from fastapi.testclient import TestClient

    from risk_env.web.app import create_app

    rules = small(2, turn_limit=20)
    path = tmp_path / "game.json"
    game = GameSession(rules, agents=["random"], seed=0).game
    seed = next(k for k in range(50) if game.current_player(game.new_game(k)) == 0)  # the person first
    session = GameSession(rules, seat=0, agents=[getattr(helpers, agent)()], seed=seed, record=path)
    client = TestClient(create_app(session), raise_server_exceptions=False, base_url="http://localhost:8000")
    view = client.get("/api/game").json()
    while True:  # the person's turn, until the agent is asked
        reply = client.post("/api/act", json={"action": _choices(view)[-1]})
        if reply.status_code != 200:
            break
        view = reply.json()
    assert reply.status_code == 409
    why = reply.json()["detail"]
    assert re.match(rf"agent '{helpers.__dict__[agent].name}' \(player_1\) {told}", why), why
    assert why.endswith("; the game cannot go on: start a new game") and "Alaska" not in why and "[" not in why
    assert session.over and session.stopped == why and client.get("/api/game").json()["decision"] is None
    assert GameRecord.load(path).result["ended"] == ended  # type: ignore[index]
    assert client.get("/api/record").status_code == 200  # the game is over: the person may have its record
    nxt = client.post("/api/new", json={"seed": seed})  # the next game starts (and stops again at the agent)
    assert nxt.status_code == 200 and not nxt.json()["over"]


def test_agents_that_never_reach_the_persons_decision_end_the_game() -> None:
    session = GameSession(small(3), seat=0, agents=["random"], seed=1, max_agent_steps=2)
    view = session.view()
    with pytest.raises(RiskError, match="the agents took 2 actions without the game reaching your decision"):
        while not view["over"]:
            view = session.act(int(np.random.default_rng(0).choice(_choices(view))))
    assert session.over and session.view()["decision"] is None
    assert session.record().result["ended"] == "stopped after 2 actions of the agents"  # type: ignore[index]
