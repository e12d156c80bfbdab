"""The HTML replay and the web app in a real browser: headless Chromium driven by Selenium, asserting on what a
person sees (the board's colours and numbers, the prompt, the buttons, the move list), that it matches the
engine's position, and that the page logs no console error.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them when absent) and the ``dev``
extra (selenium). Without them the tests skip with one line saying so, except under CI (``CI`` set), where a
missing browser is a failure: CI installs it.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from risk_env.records.html import write_replay_page
from risk_env.records.record import GameRecord, replay
from risk_env.records.svg import BoardSvg
from risk_env.rules.config import resolve_rules
from risk_env.web.session import RECORD_WHEN_OVER, GameSession

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)


def _need(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{what} (CI installs it: see .ci/run)")
    pytest.skip(what)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _need("browser tests need selenium (pip install -e '.[dev]')")
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        _need("browser tests need headless Chromium: apt-get install chromium chromium-driver")
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager downloads nothing (this machine has no network)
    profile = tempfile.mkdtemp(prefix="risk_env_chromium_")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[str]:
    """The page's console messages of level SEVERE since the last call (errors, failed loads)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def board_seen(driver: Any) -> dict[str, list[str]]:
    """What the board shows: each territory's region colour and army number, read from the page's SVG."""
    return driver.execute_script(
        "const s = document.querySelector('#board svg'); const T = s.querySelectorAll('.territory').length;"
        "const fill = [], number = [];"
        "for (let t = 0; t < T; t++) { fill.push(s.querySelector('#t' + t).getAttribute('fill'));"
        " number.push(s.querySelector('#n' + t).textContent); }"
        "return {fill: fill, number: number};"
    )


def board_expected(board: BoardSvg, s: Any) -> dict[str, list[str]]:
    """What the board must show for the engine's position ``s``."""
    fills = board.palette()["fill"]
    return {
        "fill": [fills[int(o) + 1] for o in s.owner],
        "number": [str(int(a)) if o >= 0 else "" for o, a in zip(s.owner, s.armies, strict=True)],
    }


def wait_for(what: Callable[[], Any], timeout: float = 60.0, why: str = "") -> Any:
    end = time.monotonic() + timeout
    while True:
        got = what()
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout}s waiting for {why or what}")
        time.sleep(0.02)


# ---------------------------------------------------------------------- the HTML replay
def test_the_replay_page_steps_scrubs_and_plays(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    record = GameRecord.load(ROOT / "docs" / "board.json")
    states = list(replay(record))
    board = BoardSvg(record.game(), record.player_labels())
    page = write_replay_page(record, tmp_path / "replay.html")
    browser.get(page.as_uri())
    where = browser.find_element(By.ID, "where")
    assert where.text == "move 0 / 267" and board_seen(browser) == board_expected(board, states[0])

    def position() -> int:
        return int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-position"))

    nxt = browser.find_element(By.ID, "next")
    for k in range(1, 31):  # step through the setup, checking the board after each move
        nxt.click()
        assert position() == k and board_seen(browser) == board_expected(board, states[k]), k
    assert where.text == "move 30 / 267"
    browser.find_element(By.ID, "prev").click()
    assert position() == 29 and board_seen(browser) == board_expected(board, states[29])
    # a move in the list
    item = browser.find_element(By.CSS_SELECTOR, '#move-list li.move[data-k="150"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", item)
    item.click()
    assert position() == 150 and "current" in item.get_attribute("class")
    assert board_seen(browser) == board_expected(board, states[150])
    assert browser.find_element(By.ID, "title").text.startswith("turn ")
    # the keys: End, Home, Page Down (the next game turn)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.END)
    assert position() == 267 and browser.find_element(By.ID, "title").text == "game over: turn limit"
    body.send_keys(Keys.HOME)
    assert position() == 0
    body.send_keys(Keys.PAGE_DOWN)
    first_turn = next(k for k, s in enumerate(states) if s.turn >= 1)  # the position after the setup's last move
    assert position() == first_turn
    # scrubbing: a click on the slider's middle
    from selenium.webdriver.common.action_chains import ActionChains

    scrub = browser.find_element(By.ID, "scrub")
    ActionChains(browser).move_to_element_with_offset(scrub, 0, 0).click().perform()
    k = position()
    assert 100 <= k <= 167 and int(scrub.get_attribute("value")) == k
    assert board_seen(browser) == board_expected(board, states[k])
    # playing to the end at the fastest speed
    Select(browser.find_element(By.ID, "speed")).select_by_value("15")
    browser.find_element(By.ID, "play").click()
    wait_for(lambda: position() == 267 and body.get_attribute("data-playing") == "false", 60, "the end of the game")
    assert board_seen(browser) == board_expected(board, states[-1])
    assert console_errors(browser) == []


# ---------------------------------------------------------------------- the web app
class LiveServer:
    """The app of a session, served by uvicorn in a thread on a free loopback port."""

    def __init__(self, session: GameSession) -> None:
        import uvicorn

        from risk_env.web.app import bind, create_app

        sock = bind("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
        self.server = uvicorn.Server(uvicorn.Config(create_app(session), log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        wait_for(lambda: self.server.started, 30, "the server to start")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture()
def served() -> Iterator[Callable[[GameSession], str]]:
    pytest.importorskip("uvicorn", reason="the web app needs uvicorn (the web extra)")
    pytest.importorskip("fastapi", reason="the web app needs fastapi (the web extra)")
    servers: list[LiveServer] = []

    def start(session: GameSession) -> str:
        servers.append(LiveServer(session))
        return servers[-1].url

    yield start
    for s in servers:
        s.stop()


def _ready(driver: Any) -> bool:
    return driver.execute_script("return document.body.dataset.ready === 'true'")


_READ_CHOICES = (
    "return {prompt: document.getElementById('prompt').textContent,"
    " buttons: Array.from(document.querySelectorAll('#choices button')).map(b => b.textContent),"
    " markers: Array.from(document.querySelectorAll('#board svg circle.marker.legal')).map(m => {"
    "  const t = m.getAttribute('data-t'); const n = document.getElementById('n' + t).textContent;"
    "  return [Number(t), n ? Number(n) : 0]; })};"
)


def _choose(driver: Any, rng: np.random.Generator, plan: str) -> Any:
    """The element a person clicks next, read off the page (the prompt, the buttons, the territories lit up
    as legal, their army numbers): ``plan`` "random" picks any of them, "attack" plays to win (concentrate,
    blitz, occupy with everything, trade when it can, skip the fortify)."""
    from selenium.webdriver.common.by import By

    seen = driver.execute_script(_READ_CHOICES)
    prompt, labels, markers = seen["prompt"], seen["buttons"], seen["markers"]

    def button(i: int) -> Any:
        return driver.find_elements(By.CSS_SELECTOR, "#choices button")[i]

    def marker(t: int) -> Any:
        return driver.find_element(By.ID, f"m{t}")

    if plan == "random":
        k = int(rng.integers(len(labels) + len(markers)))
        return button(k) if k < len(labels) else marker(markers[k - len(labels)][0])
    for want in ("blitz", "trade"):
        hit = [i for i, label in enumerate(labels) if label.startswith(want)]
        if hit:
            return button(hit[0])
    if prompt.startswith(("How many armies", "You conquered", "Move how many")):
        return button(len(labels) - 1)
    if prompt.startswith("Fortify") and "end turn" in labels:
        return button(labels.index("end turn"))
    if prompt.startswith("Attack:"):
        strong = [m for m in markers if m[1] >= 3]
        if not strong and "end attack" in labels:
            return button(labels.index("end attack"))
        return marker(max(strong or markers, key=lambda m: m[1])[0])
    if prompt.startswith("Attack from"):
        return marker(min(markers, key=lambda m: m[1])[0])
    if prompt.startswith("Place") and markers:
        return marker(max(markers, key=lambda m: m[1])[0])
    return marker(markers[0][0]) if markers else button(0)


def record_link(driver: Any) -> str | None:
    """Where the page's "Download record" points (None: nowhere, the control is off)."""
    from selenium.webdriver.common.by import By

    link = driver.find_element(By.ID, "download")
    href = link.get_attribute("href")
    assert (href is None) == (link.get_attribute("aria-disabled") == "true")
    return href


def fetch_status(driver: Any, path: str) -> list[Any]:
    """``[status, JSON body]`` of a GET of ``path`` from the page."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];fetch(arguments[0]).then(r => r.json().then(b => done([r.status, b])));",
        path,
    )


def play_in_browser(driver: Any, url: str, session: GameSession, plan: str, seed: int, check_every: int = 1) -> int:
    """Play the person's seat through clicks until the game ends; returns the number of clicks. After every
    ``check_every`` clicks the board on the page must show the engine's position."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(url)
    wait_for(lambda: _ready(driver), 60, "the page to load the game")
    Select(driver.find_element(By.ID, "pace")).select_by_value("0")
    assert record_link(driver) is None  # the record holds the seed, hence every card and die: not while the game is on
    rng = np.random.default_rng(seed)
    clicks = 0
    while driver.find_element(By.TAG_NAME, "body").get_attribute("data-over") != "true":
        assert driver.find_element(By.ID, "prompt").text, "the page asks for nothing"
        _choose(driver, rng, plan).click()
        clicks += 1
        wait_for(lambda: _ready(driver), 120, f"the page after click {clicks}")
        assert driver.find_element(By.ID, "error").text == ""
        if clicks % check_every == 0:
            with session.lock:
                assert board_seen(driver) == board_expected(session.board, session.state), f"after click {clicks}"
        assert clicks < 20_000, "the game does not end"
    with session.lock:
        assert board_seen(driver) == board_expected(session.board, session.state)
    return clicks


def test_a_whole_game_played_through_clicks(browser: Any, served: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    rules = resolve_rules("classic", num_players=2, map="small", setup="random", turn_limit=12, two_player="none")
    path = tmp_path / "game.json"
    session = GameSession(rules, seat=0, agents=["random"], seed=21, record=path)
    url = served(session)
    clicks = play_in_browser(browser, url, session, "attack", seed=0)
    assert clicks > 10 and session.over
    result = browser.find_element(By.ID, "result").text
    assert result and browser.find_element(By.ID, "prompt").text == "The game is over."
    assert browser.find_element(By.ID, "saved").text == f"record saved to {path}"
    rec = GameRecord.load(path)  # the game's record, replayable: every move and action id
    assert rec.final_state() == session.state
    assert record_link(browser) == url + "api/record"  # the game is over: its record, with its seed, is the person's
    status, body = fetch_status(browser, "/api/record")
    assert status == 200 and GameRecord.from_dict(body) == rec and body["seed"] == 21
    log = browser.find_elements(By.CSS_SELECTOR, "#log li")
    assert len(log) == len(rec.moves) and log[-1].find_element(By.CLASS_NAME, "text").text == rec.moves[-1]
    dice = browser.find_elements(By.CSS_SELECTOR, "#dice .die")
    assert dice, "the last roll is shown"
    # a new game from the page: the board and the log start again
    browser.find_element(By.ID, "new-game").click()
    wait_for(lambda: _ready(browser) and browser.find_element(By.TAG_NAME, "body").get_attribute("data-over") == "false")
    with session.lock:
        assert session.seed not in (21, 22) and board_seen(browser) == board_expected(session.board, session.state)
        assert len(browser.find_elements(By.CSS_SELECTOR, "#log li")) == len(session.history)
    assert console_errors(browser) == []
    assert record_link(browser) is None  # the new game's seed is fresh, and kept from the person
    status, body = fetch_status(browser, "/api/record")
    assert status == 409 and body == {"detail": RECORD_WHEN_OVER}
    assert [m for m in console_errors(browser) if "409" not in m] == []  # the refused fetch is the one error logged


def test_the_page_shows_the_pending_selection_and_refuses_nothing_legal(browser: Any, served: Any) -> None:
    """A click on a territory is a sub-step: the page rings the chosen source and asks for the amount."""
    from selenium.webdriver.common.by import By

    rules = resolve_rules("classic", num_players=3, setup="random", turn_limit=5)
    session = GameSession(rules, seat=1, agents=["balanced"], seed=3)
    browser.get(served(session))
    wait_for(lambda: _ready(browser), 60, "the page to load the game")
    prompt = browser.find_element(By.ID, "prompt").text
    assert prompt.startswith("Place ") and "armies: click one of your territories" in prompt
    markers = browser.find_elements(By.CSS_SELECTOR, "#board svg circle.marker.legal")
    with session.lock:
        own = {int(t) for t in np.flatnonzero(session.state.owner == 1)}
    assert {int(m.get_attribute("data-t")) for m in markers} == own
    target = markers[0]
    t = int(target.get_attribute("data-t"))
    target.click()
    wait_for(lambda: _ready(browser), 60)
    assert browser.find_element(By.ID, "prompt").text.startswith("How many armies on ")
    assert browser.find_element(By.ID, f"r{t}").get_attribute("display") == "inline"  # the ring on the choice
    with session.lock:
        assert session.raw.selection.src == t
        labels = [c["label"] for c in session.decision()["buttons"]]  # type: ignore[index]
    assert [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#choices button")] == labels
    assert console_errors(browser) == []


def test_an_agents_failure_shows_the_game_stopped(browser: Any, served: Any) -> None:
    """The agent chooses an id its mask forbids after the person's move: the page says which agent and which id
    (not its legal ids), and shows the game over as the server has it (the record to download, New game)."""
    from helpers import StubbornAgent
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    rules = resolve_rules("classic", num_players=2, map="small", setup="random", turn_limit=20)
    game = GameSession(rules, agents=["random"], seed=0).game
    seed = next(k for k in range(50) if game.current_player(game.new_game(k)) == 0)  # the person moves first
    session = GameSession(rules, seat=0, agents=[StubbornAgent()], seed=seed)
    browser.get(served(session))
    wait_for(lambda: _ready(browser), 60, "the page to load the game")
    Select(browser.find_element(By.ID, "pace")).select_by_value("0")
    rng = np.random.default_rng(0)
    for clicks in range(200):  # the person's first turn, until the agent's
        if browser.find_element(By.TAG_NAME, "body").get_attribute("data-over") == "true":
            break
        _choose(browser, rng, "random").click()
        wait_for(lambda: _ready(browser), 60, f"the page after click {clicks + 1}")
    error = browser.find_element(By.ID, "error").text
    assert error.startswith("agent 'stubborn' (player_1) chose the illegal action id ") and "Legal ids" not in error
    assert browser.find_element(By.ID, "prompt").text == "The game is over."
    assert browser.find_element(By.ID, "result").text == f"The game was stopped: {error}."
    assert record_link(browser) is not None  # the game is over: its record is the person's
    assert browser.find_element(By.ID, "new-game").is_enabled()
    assert [m for m in console_errors(browser) if "409" not in m] == []  # the refused act is the one error logged


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RISK_ENV_SLOW_TESTS"), reason="set RISK_ENV_SLOW_TESTS=1 (about a minute)")
def test_a_full_game_against_ppo_2p_in_the_browser(browser: Any, served: Any, tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="the pretrained agents need the train extra")
    rules = resolve_rules("fast", num_players=2)
    path = tmp_path / "ppo.json"
    session = GameSession(rules, seat=0, agents=["ppo-2p-0.1"], seed=2, record=path)
    clicks = play_in_browser(browser, served(session), session, "attack", seed=2, check_every=25)
    rec = GameRecord.load(path)
    assert session.over and rec.final_state() == session.state and rec.players == ["human", "ppo-2p-0.1"]
    r = rec.result or {}
    print(
        f"ppo-2p-0.1 game: {clicks} clicks, {len(rec.moves)} moves, {r['turns']} turns, ended {r['ended']}, winner {r['winner']}"
    )
    assert console_errors(browser) == []
