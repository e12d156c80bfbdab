"""Rendering: the ansi text board, the rgb_array picture, the human window (headless), PettingZoo's render_test."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import risk_env  # noqa: E402
from risk_env import Game  # noqa: E402
from risk_env.records.ansi import render_ansi  # noqa: E402
from risk_env.records.draw import PLAYER_COLORS, BoardRenderer, NoDisplayWarning, hex_rgb, mix  # noqa: E402
from risk_env.rules.moves import Move  # noqa: E402
from risk_env.rules.state import Phase  # noqa: E402


def _play(game: Game, seed: int, moves: int) -> tuple:
    """A position after ``moves`` uniformly random legal moves, and the last move's text."""
    rng = np.random.default_rng(seed)
    s = game.new_game(seed)
    last = ""
    for _ in range(moves):
        if s.phase == Phase.GAME_OVER:
            break
        legal = game.legal_moves(s)
        mv = legal[int(rng.integers(len(legal)))]
        game.apply(s, mv)
        last = game.move_to_text(mv)
    return s, last


# ---------------------------------------------------------------------- ansi
@pytest.mark.parametrize("map_name", ["classic", "small"])
def test_ansi_lists_every_territory_owner_and_armies(map_name: str) -> None:
    env = risk_env.raw_env(num_players=3, map=map_name, setup="random", render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert isinstance(text, str)
    game, s = env.game, env.game_state
    lines = text.splitlines()
    for t, name in enumerate(game.map.territory_names):
        row = [ln for ln in lines if ln.startswith(f"  {name} ")]
        assert len(row) == 1, name
        parts = row[0].split()
        assert parts[-1] == str(int(s.armies[t]))
        assert parts[-2] == f"player_{int(s.owner[t])}"
    for cname in game.map.continent_names:
        assert any(ln.startswith(cname + " (+") for ln in lines)
    for p in range(3):
        own = s.owner == p
        assert any(ln[2:].split()[:4] == [f"player_{p}", "territories", str(int(own.sum())), "armies"] for ln in lines)
    assert "phase reinforce" in text and f"on turn player_{s.player}" in text


def test_ansi_marks_the_last_move_continent_holder_and_colours() -> None:
    game = Game(num_players=2, map="small", setup="random", two_player="none")
    s = game.new_game(0)
    s.owner[:3] = 1  # West: Ash, Birch, Cedar
    text = render_ansi(game, s, "place Ash 2", recent=["end turn", "place Birch 1"])
    assert "West (+2)  held by player_1" in text
    ash = next(ln for ln in text.splitlines() if ln.startswith("  Ash "))
    assert ash.endswith(" <")
    assert "last move: place Ash 2" in text and "earlier moves: end turn | place Birch 1" in text
    assert "\x1b[" not in text
    coloured = render_ansi(game, s, color=True)
    assert "\x1b[31m" in coloured  # player_1 in red
    assert render_ansi(game, s, names=["alice", "bob"]).count("bob") >= 4


def test_ansi_pending_battle_and_game_over() -> None:
    game = Game(num_players=3, map="small", setup="random", defender_dice="choose")
    s, _ = _play(game, 1, 0)
    s.phase = Phase.ATTACK
    a = next(t for t in range(game.T) if s.owner[t] == s.player)
    b = (
        next(t for t in game.neighbors[a] if s.owner[t] != s.player)
        if any(s.owner[t] != s.player for t in game.neighbors[a])
        else None
    )
    if b is not None:
        s.armies[a] = 5
        game.apply(s, Move.attack(a, b, 3))
        assert s.phase == Phase.DEFEND
        assert f"{game.map.name_of(a)} attacks {game.map.name_of(b)} with 3" in render_ansi(game, s)
    s.phase = Phase.GAME_OVER
    s.winner = 2
    assert "winner player_2" in render_ansi(game, s)


# ---------------------------------------------------------------------- rgb_array
def test_rgb_array_shape_dtype_and_owner_colours() -> None:
    env = risk_env.raw_env(num_players=4, setup="random", render_mode="rgb_array")
    env.reset(seed=2)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.shape == (540, 1300, 3)
    r = env._renderer
    L = r.layer
    s = env.game_state
    for t in range(env.game.T):
        o = int(s.owner[t])
        y0, y1, x0, x1, dist, cx, cy = L.windows[t]
        # the marker's fill, left of the army number, is the owner's colour
        px = frame[int(cy), int(cx - L.marker_r + 3)].astype(int)
        assert np.abs(px - hex_rgb(PLAYER_COLORS[o])).max() <= 2, (t, px)
        # a pixel of the territory's region, clear of outlines and of the marker, is the owner's tint
        far = np.hypot(L.pixels[t] % 1000 + 0.5 - cx, L.pixels[t] // 1000 + 0.5 - cy) > L.marker_r + 40
        clear = L.pixels[t][(L.alpha.reshape(-1)[L.pixels[t]] == 0) & far]
        if len(clear):
            y, x = divmod(int(clear[0]), 1000)
            want = mix(PLAYER_COLORS[o], "#ffffff", 0.4)
            assert np.abs(frame[y, x].astype(float) - want).max() <= 1.0
    env.close()


def test_capital_stars_sit_on_their_capitals_marker() -> None:
    from helpers import build, make_game

    game = make_game(3, map="small", capitals=True)
    s = build(game, owners={"Ash": 0, "Dune": 2}, player=0, phase=Phase.REINFORCE, to_place=3)
    r = BoardRenderer(game)
    r.draw(s)
    assert [t for t, star in enumerate(r.territory_stars) if star.get_visible()] == sorted(s.capitals)
    for p, t in enumerate(s.capitals):
        x, y = r.map.xy[t]
        star = r.territory_stars[t]
        assert star.get_position() == pytest.approx((x, y - r.layer.marker_r)) and star.get_color() == r.colors[p]
    r.close()


def test_rgb_array_small_map_and_attack_arrow() -> None:
    game = Game(num_players=3, map="small", setup="random")
    r = BoardRenderer(game)
    s, _ = _play(game, 0, 0)
    plain = r.draw(s, "")
    assert plain.shape == (500, 1300, 3) and plain.dtype == np.uint8
    a = next(t for t in range(game.T) if any(s.owner[b] != s.owner[t] for b in game.neighbors[t]))
    b = next(x for x in game.neighbors[a] if s.owner[x] != s.owner[a])
    text = f"attack {game.map.name_of(a)}->{game.map.name_of(b)} dice=1"
    arrow = r.draw(s, text)
    mid = (game.map.xy[a] + game.map.xy[b]) / 2 * r.layer.scale
    y, x = int(mid[1]), int(mid[0])
    patch = arrow[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3).astype(int)
    red = hex_rgb("#c0141b")
    assert (np.abs(patch - red).max(axis=1) <= 40).any()  # the attack arrow crosses the middle of the border
    assert not (np.abs(plain[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3).astype(int) - red).max(axis=1) <= 40).any()
    assert np.array_equal(r.draw(s, ""), plain)  # frames depend only on their inputs
    with pytest.raises(ValueError, match="player_names needs 3"):
        BoardRenderer(game, player_names=["a"])


def test_every_map_lane_is_a_border_and_alaska_kamchatka_wraps() -> None:
    game = Game(num_players=4)
    r = BoardRenderer(game)
    m = game.map
    lanes = {(m.name_of(a), m.name_of(b)) for a, b in r.layer.lanes}
    assert ("Alaska", "Kamchatka") in lanes and ("Brazil", "North Africa") in lanes and ("Greenland", "Iceland") in lanes
    assert all(m.adjacency[a, b] for a, b in r.layer.lanes)
    # continents are islands: regions touch only inside a continent
    T = m.num_territories
    touching = np.argwhere(np.triu(r.layer.touch))
    assert len(touching) > 40
    assert all(m.territory_continent[a] == m.territory_continent[b] for a, b in touching)
    assert len(r.layer.pixels) == T and all(len(p) > 500 for p in r.layer.pixels)


# ---------------------------------------------------------------------- human
def test_human_mode_without_display_warns_once_and_returns_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    env = risk_env.raw_env(num_players=2, map="small", setup="random", render_mode="human")
    env.reset(seed=0)
    with pytest.warns(NoDisplayWarning, match="cannot show a window"):
        assert env.render() is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert env.render() is None  # warned once only
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))  # step() renders too
    env.close()


def test_pettingzoo_render_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from pettingzoo.test import render_test

    def make(render_mode: str | None = None):  # type: ignore[no-untyped-def]
        return risk_env.env(num_players=3, map="small", setup="random", render_mode=render_mode)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoDisplayWarning)
        render_test(make)


def test_save_png_and_draw_refuse_what_they_cannot_do(tmp_path) -> None:  # type: ignore[no-untyped-def]
    game = Game(num_players=2, map="small", setup="random")
    r = BoardRenderer(game)
    s = game.new_game(1)
    with pytest.raises(risk_env.ConfigError) as e:  # ("ValueError: unknown file extension:")
        r.save_png(s, tmp_path)
    assert str(e.value) == f"BoardRenderer.save_png: path {str(tmp_path)!r} is a folder; give a file name"
    with pytest.raises(risk_env.ConfigError) as e:
        r.save_png(s, tmp_path / "new" / "board.svg")
    assert str(e.value) == (
        f"BoardRenderer.save_png: path {str(tmp_path / 'new' / 'board.svg')!r}: give a file name ending in .png (this "
        "writes a PNG picture; Position.save_svg of risk_env.records.svg writes SVG text)"
    )
    classic = Game(num_players=2, setup="random").new_game(1)
    for draw in (r.draw, lambda state: r.save_png(state, tmp_path / "new" / "board.png")):
        with pytest.raises(risk_env.StateError) as e:  # (an IndexError)
            draw(classic)
        assert str(e.value) == (
            "the state is a position of a map of 42 territories; this board is of map 'small', 9 territories: "
            "draw it with a board of its own game"
        )
    assert list(tmp_path.iterdir()) == []
    r.save_png(s, tmp_path / "new" / "board.png")
    assert (tmp_path / "new" / "board.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (
            {"dpi": 0},
            "BoardRenderer dpi must be a number from 50 to 120 (the picture's size is fixed; dpi sizes its text), got 0",
        ),
        ({"dpi": -5}, "BoardRenderer dpi must be a number from 50 to 120"),
        (
            {"dpi": "x"},
            "BoardRenderer dpi must be a number from 50 to 120 (the picture's size is fixed; dpi sizes its text), got 'x'",
        ),
        ({"dpi": 1.5}, "BoardRenderer dpi must be a number from 50 to 120"),  # (a freetype RuntimeError)
        ({"dpi": 121}, "BoardRenderer dpi must be a number from 50 to 120"),
        ({"dpi": float("nan")}, "BoardRenderer dpi must be a number from 50 to 120"),
        (
            {"dpi": True},
            "BoardRenderer dpi must be a number from 50 to 120 (the picture's size is fixed; dpi sizes its text), got True",
        ),
        ({"player_names": "abc"}, "player_names must be a list of names (text), got 'abc'"),  # (three names)
        ({"player_names": [1, 2]}, "player_names must be a list of names (text), got [1, 2]"),
        ({"player_names": ["a", "b\nc"]}, "player_names must be printable text, got 'b\\nc'"),
    ],
)
def test_the_renderers_arguments_are_refused_by_name(kwargs: dict, message: str) -> None:
    """dpi=0 was a ZeroDivisionError, -5 matplotlib's ValueError, 'x' a ValueError, 1.5 a freetype RuntimeError;
    player_names='abc' was taken as three names."""
    game = Game(num_players=2, map="small", setup="random")
    with pytest.raises(risk_env.ConfigError) as e:
        BoardRenderer(game, **kwargs)
    assert type(e.value) is risk_env.ConfigError and str(e.value).startswith(message)


def test_the_dpi_range_draws_the_same_picture_size() -> None:
    from risk_env.records.draw import MAX_DPI, MIN_DPI

    game = Game(num_players=2, map="small", setup="random")
    s = game.new_game(0)
    assert (MIN_DPI, MAX_DPI) == (50, 120)
    for dpi in (MIN_DPI, 72.5, np.int64(100), MAX_DPI):
        assert BoardRenderer(game, dpi=dpi).draw(s).shape == (500, 1300, 3)


def test_draw_and_save_png_refuse_what_is_not_text_before_anything_is_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """last_move=5 was an AttributeError, recent=None a TypeError, save_png(s, None) a TypeError (5 and b"x" were
    ConfigErrors already)."""
    from risk_env.records.svg import Position

    game = Game(num_players=2, map="small", setup="random")
    r = BoardRenderer(game)
    s = game.new_game(1)
    png = tmp_path / "board.png"
    last = "last_move must be the last move's text (a str; '' for none), got int 5"
    recent = "recent must be a list of earlier moves' texts (str), oldest first (() for none), got "
    for call, message in [
        (lambda: r.draw(s, last_move=5), last),  # type: ignore[arg-type]
        (lambda: r.draw(s, recent=None), recent + "NoneType None"),  # type: ignore[arg-type]
        (lambda: r.draw(s, recent="place Ash 1"), recent + "str 'place Ash 1'"),
        (lambda: r.draw(s, recent=["place Ash 1", 3]), recent + "list ['place Ash 1', 3]"),  # type: ignore[list-item]
        (lambda: r.save_png(s, png, last_move=5), last),  # type: ignore[arg-type]
    ]:
        with pytest.raises(risk_env.ConfigError) as e:
            call()
        assert str(e.value) == message
    for path in (None, 5, b"x"):
        with pytest.raises(risk_env.ConfigError) as e:
            r.save_png(s, path)  # type: ignore[arg-type]
        assert str(e.value) == (
            f"BoardRenderer.save_png: path: give a file name as text or a pathlib.Path, got {type(path).__name__} {path!r}"
        )
        with pytest.raises(risk_env.ConfigError) as e:
            Position(game, s).save_svg(path)  # type: ignore[arg-type]
        assert str(e.value) == (
            f"Position.save_svg: path: give a file name as text or a pathlib.Path, got {type(path).__name__} {path!r}"
        )
    assert list(tmp_path.iterdir()) == []
    assert r.draw(s, "place Ash 1", ("place Ash 1",)).shape == (500, 1300, 3)  # a tuple of texts is a list of them
