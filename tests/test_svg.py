"""The SVG picture of a position: parsed back and checked against hand-built positions (owners, armies, the
pending battle, the codec's selection, the panel's figures), its outlines against the layout's pixels, the
arrow label placement shared with the raster picture, and ``_repr_svg_`` on the envs, views and records."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from helpers import build, make_game, tid

import risk_env
from risk_env import Game
from risk_env.envs.codec import Selection
from risk_env.records.layout import PLAYER_COLORS, UNCLAIMED_COLOR, hex_color, map_geometry, mix
from risk_env.records.record import GameRecord, replay_moves
from risk_env.records.svg import BoardSvg, Position, board_svg
from risk_env.rules.state import Phase

ROOT = Path(__file__).resolve().parent.parent
NS = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> dict[str, ET.Element]:
    """The SVG's elements by id (the text must be well-formed XML)."""
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return {el.get("id"): el for el in root.iter() if el.get("id")}  # type: ignore[misc]


def _text(el: ET.Element) -> str:
    return "".join(el.itertext())


def _tint(color: str) -> str:
    return hex_color(mix(color, "#ffffff", 0.4))


def _points(d: str) -> np.ndarray:
    return np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]).reshape(-1, 2)


def test_owners_armies_and_panel_of_a_hand_built_position() -> None:
    game = make_game(3, map="small")
    s = build(
        game,
        owners={"Ash": 0, "Birch": 0, "Cedar": 0, "Dune": 2, "Elm": 2},
        default_owner=1,
        armies={"Ash": 7, "Birch": 12, "Cedar": 3, "Dune": 5, "Heath": 9},
        default_armies=2,
        player=2,
        phase=Phase.ATTACK,
    )
    el = _parse(board_svg(game, s, player_names=["me", "bot", "other"]))
    want_armies = {"Ash": 7, "Birch": 12, "Cedar": 3, "Dune": 5, "Elm": 2, "Fern": 2, "Gale": 2, "Heath": 9, "Isle": 2}
    want_owner = {"Ash": 0, "Birch": 0, "Cedar": 0, "Dune": 2, "Elm": 2, "Fern": 1, "Gale": 1, "Heath": 1, "Isle": 1}
    for name, n in want_armies.items():
        t = tid(game, name)
        color = PLAYER_COLORS[want_owner[name]]
        assert el[f"t{t}"].get("fill") == _tint(color), name
        assert el[f"t{t}"].find(NS + "title").text == name  # type: ignore[union-attr]
        assert el[f"m{t}"].get("fill") == color
        assert _text(el[f"n{t}"]) == str(n)
    # the panel: who acts, and each seat's territories, armies and cards
    assert _text(el["title"]) == "turn 1 · attack" and _text(el["subtitle"]) == "other to act"
    figures = [(_text(el[f"row{p}-name"]), _text(el[f"row{p}-territories"]), _text(el[f"row{p}-armies"])) for p in range(3)]
    assert figures == [("me", "3", "22"), ("bot", "4", "15"), ("other", "2", "7")]
    assert [_text(el[f"turn{p}"]) for p in range(3)] == ["", "", "▶"]
    assert el["row2"].get("font-weight") == "bold" and el["row0"].get("font-weight") == "normal"
    # continents: West (Ash, Birch, Cedar) is held by seat 0, Middle is split, East (Gale, Heath, Isle) is seat 1's
    assert [el[f"holder{c}"].get("fill") for c in range(3)] == [PLAYER_COLORS[0], "none", PLAYER_COLORS[1]]
    assert el["arrow"].get("display") == "none" and all(el[f"r{t}"].get("display") == "none" for t in range(game.T))


def test_unclaimed_territories_are_blank_and_the_claim_is_ringed() -> None:
    game = Game(num_players=3, map="small", setup="claim")
    s = game.new_game(seed=4)
    assert s.phase == Phase.CLAIM and (s.owner == -1).all()
    move = game.legal_moves(s)[0]
    game.apply(s, move)
    el = _parse(board_svg(game, s, last_move=game.move_to_text(move)))
    claimed = move.src
    for t in range(game.T):
        if t == claimed:
            assert el[f"t{t}"].get("fill") != UNCLAIMED_COLOR and _text(el[f"n{t}"]) == "1"
            assert el[f"r{t}"].get("display") == "inline"  # the ring of the last move
        else:
            assert el[f"t{t}"].get("fill") == UNCLAIMED_COLOR and _text(el[f"n{t}"]) == ""
            assert el[f"m{t}"].get("stroke") == "#9a9a9a" and el[f"r{t}"].get("display") == "none"
    assert _text(el["title"]) == "setup · claim"


def test_pending_battle_and_last_attack_arrows() -> None:
    game = make_game(2, map="small", two_player="none")
    s = build(game, owners={"Cedar": 0, "Ash": 0}, armies={"Cedar": 6, "Dune": 1}, player=0, phase=Phase.OCCUPY)
    s.att_src, s.att_dst, s.att_dice = tid(game, "Cedar"), tid(game, "Dune"), 3
    s.owner[s.att_dst] = 0
    g = map_geometry(game.map)
    el = _parse(board_svg(game, s))
    assert el["arrow"].get("display") == "inline" and _text(el["arrow-label"]) == "conquered"
    assert el["arrow-line"].get("stroke") == "#c0141b" and el["arrow-line"].get("stroke-dasharray") == "none"
    shaft = _points(el["arrow-line"].get("d", ""))
    tip = _points(el["arrow-head"].get("points", "").replace(",", " "))[0]
    a, b = g.xy[s.att_src], g.xy[s.att_dst]
    # from the rim of Cedar's marker to the rim of Dune's
    assert abs(np.hypot(*(shaft[0] - a)) - (g.marker_r + 1)) < 0.2 and abs(np.hypot(*(tip - b)) - (g.marker_r + 3)) < 0.2
    # the last move highlighted: an attack of 2 dice that did not conquer
    s2 = build(game, owners={"Cedar": 0}, armies={"Cedar": 6}, player=0, phase=Phase.ATTACK)
    el = _parse(board_svg(game, s2, last_move="attack Cedar->Dune dice=2"))
    assert _text(el["arrow-label"]) == "2 dice" and el["arrow"].get("display") == "inline"
    # a fortification is a blue arrow with the count
    s3 = build(game, owners={"Cedar": 0, "Ash": 0}, armies={"Cedar": 2, "Ash": 4}, player=0, phase=Phase.FORTIFY)
    el = _parse(board_svg(game, s3, last_move="fortify Ash->Cedar 1"))
    assert _text(el["arrow-label"]) == "moved 1" and el["arrow-line"].get("stroke") == "#1d4f91"


def test_the_pending_selection_is_shown() -> None:
    game = make_game(2, map="small", two_player="none")
    s = build(game, owners={"Cedar": 0, "Ash": 0}, armies={"Cedar": 6}, player=0, phase=Phase.ATTACK)
    cedar, dune = tid(game, "Cedar"), tid(game, "Dune")
    el = _parse(board_svg(game, s, selection=Selection(src=cedar)))
    assert [t for t in range(game.T) if el[f"r{t}"].get("display") == "inline"] == [cedar]
    el = _parse(board_svg(game, s, selection=Selection(src=cedar, dst=dune)))
    assert el["arrow"].get("display") == "inline" and el["arrow-line"].get("stroke-dasharray") != "none"
    assert _text(el["arrow-label"]) == ""


def test_capitals_and_the_winner() -> None:
    game = make_game(3, map="small", capitals=True)
    s = build(game, owners={"Ash": 0, "Dune": 2}, player=0, phase=Phase.REINFORCE, to_place=3)
    el = _parse(board_svg(game, s))
    capital_of = {int(t): p for p, t in enumerate(s.capitals)}
    for t in range(game.T):  # a star on each capital, in its seat's colour, and on no other territory
        star = el[f"mark{t}"]
        if t in capital_of:
            assert star.get("display") == "inline" and _text(star) == "★"
            assert star.get("fill") == PLAYER_COLORS[capital_of[t]]
            assert float(star.get("x", "nan")) == pytest.approx(map_geometry(game.map).xy[t, 0], abs=0.06)
        else:
            assert star.get("display") == "none"
    s.phase, s.winner = Phase.GAME_OVER, 1
    el = _parse(board_svg(game, s))
    assert _text(el["title"]) == "player_1 wins" and _text(el["row1-name"]) == "player_1 won"
    assert not any(re.fullmatch(r"mark\d+", k) for k in _parse(board_svg(make_game(3, map="small"), s)))  # no marks


def test_pictures_draw_the_variants_territory_marks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both pictures show what the variants' ``territory_marks`` hook marks (as the text boards do), not a
    reading of the capitals themselves."""
    from risk_env.records.draw import BoardRenderer
    from risk_env.records.picture import describe
    from risk_env.rules.capitals import Capitals

    game0 = make_game(3, map="small", capitals=True)
    cedar, dune = tid(game0, "Cedar"), tid(game0, "Dune")
    monkeypatch.setattr(Capitals, "territory_marks", lambda self, s: {cedar: ("seat {}", "x", 1), dune: ("seat {}", "y", 2)})
    game = make_game(3, map="small", capitals=True)
    s = build(game, owners={"Ash": 0, "Dune": 2}, player=0, phase=Phase.REINFORCE, to_place=3)
    assert describe(game, s).marks == tuple(sorted([(cedar, 1), (dune, 2)]))
    el = _parse(board_svg(game, s))
    shown = {t: el[f"mark{t}"].get("fill") for t in range(game.T) if el[f"mark{t}"].get("display") == "inline"}
    assert shown == {cedar: PLAYER_COLORS[1], dune: PLAYER_COLORS[2]}
    colors = pytest.importorskip("matplotlib.colors")
    r = BoardRenderer(game)
    try:
        r.draw(s)
        drawn = {t: colors.to_hex(star.get_color()) for t, star in enumerate(r.territory_stars) if star.get_visible()}
        assert drawn == {cedar: PLAYER_COLORS[1], dune: PLAYER_COLORS[2]}
    finally:
        r.close()


def test_outlines_follow_the_layout_pixels() -> None:
    for name in ("classic", "small"):
        game = Game(num_players=4, map=name, setup="random")
        g = map_geometry(game.map)
        el = _parse(board_svg(game, game.new_game(0)))
        for t in range(game.T):
            d = el[f"t{t}"].get("d", "")
            loops = [_points(part) for part in d.split("M")[1:]]
            area = sum(0.5 * (p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1]).sum() for p in loops)
            assert area == pytest.approx(len(g.pixels[t]), rel=0.03), (name, t)
            x, y = g.xy[t]  # the marker's centre is inside its own region (ray casting on the outer loop)
            p, q = loops[0], np.roll(loops[0], -1, axis=0)
            spans = (p[:, 1] > y) != (q[:, 1] > y)  # edges that cross the horizontal line through the centre
            p, q = p[spans], q[spans]
            crossings = x < p[:, 0] + (y - p[:, 1]) * (q[:, 0] - p[:, 0]) / (q[:, 1] - p[:, 1])
            assert crossings.sum() % 2 == 1, (name, t)


def test_arrow_labels_keep_off_the_names() -> None:
    """The label beside an arrow covers at most a sliver of any territory name, on every border of both maps
    (it used to cover two names, e.g. 'Alberta' and 'Ontario' beside Quebec->Eastern United States)."""
    for name in ("classic", "small"):
        m = Game(num_players=4, map=name).map
        g = map_geometry(m)
        fs = 8.5 * 100 / 72
        text = "3 dice: conquered"
        w, h = len(text) * fs * 0.6 + 4, fs * 1.3
        B = g.name_boxes
        for a in range(m.num_territories):
            for b in m.neighbors[a]:
                cx, cy = g.arrow_label_spot(a, b, text, fs)
                ox = np.clip(np.minimum(B[:, 2], cx + w / 2) - np.maximum(B[:, 0], cx - w / 2), 0, None)
                oy = np.clip(np.minimum(B[:, 3], cy + h / 2) - np.maximum(B[:, 1], cy - h / 2), 0, None)
                assert (ox * oy).max() < 0.04 * w * h, (m.name_of(a), m.name_of(b))
    rec = GameRecord.load(ROOT / "docs" / "board.json")
    last = [st for st in replay_moves(rec) if st.move.kind.name in ("ATTACK", "BLITZ")][-1]
    assert last.text == "attack Quebec->Eastern United States dice=2"
    el = _parse(BoardSvg(rec.game(), rec.player_labels()).svg(last.state, last.text))
    assert _text(el["arrow-label"]) == "2 dice: conquered"
    lx, ly = float(el["arrow-label"].get("x", "0")), float(el["arrow-label"].get("y", "0"))
    g = map_geometry(rec.game().map)
    for other in ("Alberta", "Ontario"):
        x0, y0, x1, y1 = g.name_boxes[rec.game().map.id_of(other)]
        assert not (x0 < lx < x1 and y0 - 8 < ly < y1 + 8), other


def test_repr_svg_on_envs_views_and_records() -> None:
    raw = risk_env.raw_env(num_players=3, map="small", setup="random")
    assert raw._repr_svg_() is None  # before reset: Jupyter shows the plain repr
    for env in (
        raw,
        risk_env.env(num_players=3, map="small", setup="random"),
        risk_env.env(num_players=3, map="small", setup="random", strict=True),
    ):
        env.reset(seed=2)
        svg = env._repr_svg_()
        assert svg is not None
        el = _parse(svg)
        s = env.unwrapped.game_state
        assert [_text(el[f"n{t}"]) for t in range(9)] == [str(a) for a in s.armies]
    # the position is a snapshot, with the env's pending selection
    raw.reset(seed=2)
    agent = raw.agent_selection
    first = int(np.flatnonzero(raw.observe(agent)["action_mask"])[0])
    raw.step(first)  # a reinforcement's territory: the amount comes next
    pos = raw.position()
    assert pos.selection == raw.selection and pos.selection.src == first
    assert _parse(pos._repr_svg_())[f"r{first}"].get("display") == "inline"
    view = raw.view(raw.agent_selection)
    assert _parse(view._repr_svg_())[f"r{first}"].get("display") == "inline"
    # a record's position after any move
    rec = GameRecord.load(ROOT / "docs" / "board.json")
    pos = rec.position(10)
    assert isinstance(pos, Position) and pos.last_move == rec.moves[9] and pos.recent == tuple(rec.moves[:9])
    el = _parse(pos._repr_svg_())
    assert _text(el["row1-name"]) == "aggressive" and _text(el["foot"]).endswith("move 10")
    assert rec.position().state == rec.final_state()
    with pytest.raises(ValueError, match="upto"):
        rec.position(len(rec.moves) + 1)


def test_save_svg_and_size(tmp_path: Path) -> None:
    game = Game(num_players=2, map="small", setup="random")
    p = Position(game, game.new_game(1)).save_svg(tmp_path / "sub" / "board.svg")
    root = ET.parse(p).getroot()
    assert root.get("viewBox") == "0 0 1300 500" and root.get("width") == "1300"
    small = ET.fromstring(Position(game, game.new_game(1)).svg(width=650))
    assert small.get("width") == "650" and small.get("height") == "250"
    bare = BoardSvg(game, panel=False)
    assert bare.size == (map_geometry(game.map).shape[0], 1000) and 'id="panel"' not in bare.svg(game.new_game(1))


def test_save_svg_and_width_refuse_what_they_cannot_write(tmp_path: Path) -> None:
    game = Game(num_players=2, map="small", setup="random")
    pos = Position(game, game.new_game(1))
    with pytest.raises(risk_env.ConfigError) as e:  # (an IsADirectoryError)
        pos.save_svg(tmp_path)
    assert str(e.value) == f"Position.save_svg: path {str(tmp_path)!r} is a folder; give a file name"
    with pytest.raises(risk_env.ConfigError) as e:  # (SVG text was written into board.png)
        pos.save_svg(tmp_path / "new" / "board.png")
    assert str(e.value) == (
        f"Position.save_svg: path {str(tmp_path / 'new' / 'board.png')!r}: give a file name ending in .svg (this writes "
        "SVG text; BoardRenderer.save_png of risk_env.records.draw writes a PNG picture)"
    )
    assert list(tmp_path.iterdir()) == []
    assert pos.save_svg(tmp_path / "Board.SVG").read_text(encoding="utf-8").startswith("<?xml")
    for width in (-5, 0, 0.5, float("nan"), True, "650"):  # (-5 gave width="-5" height="-2")
        for draw in (pos.svg, lambda width: board_svg(game, game.new_game(1), width=width)):
            with pytest.raises(risk_env.ConfigError) as e:
                draw(width=width)
            assert str(e.value) == f"width must be None (the picture's own) or a number of pixels >= 1, got {width!r}"
    assert ET.fromstring(pos.svg(width=np.int64(650))).get("height") == "250"


def test_a_state_of_another_game_is_refused_by_the_picture() -> None:
    small = Game(num_players=2, map="small", setup="random")
    with pytest.raises(risk_env.StateError) as e:  # (an IndexError, or a picture of the wrong territories)
        BoardSvg(small).svg(Game(num_players=2, setup="random").new_game(1))
    assert str(e.value) == (
        "the state is a position of a map of 42 territories; this board is of map 'small', 9 territories: "
        "draw it with a board of its own game"
    )
    with pytest.raises(risk_env.StateError, match="^the state is a position of 3 players; this board is of 2 players"):
        Position(small, Game(num_players=3, map="small", setup="random").new_game(1)).svg()


def test_the_svg_picture_refuses_names_and_move_texts_as_the_raster_picture_does(tmp_path: Path) -> None:
    """board_svg(game, s, last_move=5) was an AttributeError, recent=None a TypeError, recent="place Ash 1" eleven
    one-letter moves and BoardSvg(game, "ab") two names: both pictures take these checks from risk_env.records.picture."""
    game = Game(num_players=2, map="small", setup="random")
    s = game.new_game(1)
    last = "last_move must be the last move's text (a str; '' for none), got int 5"
    recent = "recent must be a list of earlier moves' texts (str), oldest first (() for none), got "
    names = "player_names must be a list of names (text), got "
    board = BoardSvg(game)
    for call, message in [
        (lambda: board_svg(game, s, last_move=5), last),  # type: ignore[arg-type]
        (lambda: board.svg(s, last_move=5), last),  # type: ignore[arg-type]
        (
            lambda: board.frame(s, last_move=None),
            "last_move must be the last move's text (a str; '' for none), got NoneType None",
        ),  # type: ignore[arg-type]
        (lambda: board_svg(game, s, recent=None), recent + "NoneType None"),  # type: ignore[arg-type]
        (lambda: board_svg(game, s, recent="place Ash 1"), recent + "str 'place Ash 1'"),
        (lambda: board.svg(s, recent=["place Ash 1", 3]), recent + "list ['place Ash 1', 3]"),  # type: ignore[list-item]
        (lambda: Position(game, s, recent="place Ash 1").svg(), recent + "str 'place Ash 1'"),  # type: ignore[arg-type]
        (lambda: Position(game, s, last_move=5).save_svg(tmp_path / "b.svg"), last),  # type: ignore[arg-type]
        (lambda: BoardSvg(game, "ab"), names + "'ab'"),  # type: ignore[arg-type]
        (lambda: BoardSvg(game, [1, 2]), names + "[1, 2]"),  # type: ignore[list-item]
        (lambda: board_svg(game, s, player_names="ab"), names + "'ab'"),
        (
            lambda: Position(game, s, player_names=("a", "b\tc")).svg(),
            (
                "player_names must be printable text, got 'b\\tc', which holds the unprintable character '\\t' "
                "(line breaks, tabs, escape sequences and other control characters)"
            ),
        ),
        (lambda: BoardSvg(game, ["a"]), "player_names needs 2 names (one per player seat), got 1"),
    ]:
        with pytest.raises(risk_env.ConfigError) as e:
            call()
        assert type(e.value) is risk_env.ConfigError and str(e.value) == message
    assert list(tmp_path.iterdir()) == []
    picture = BoardSvg(game, ("Ann", "Bob")).svg(s, "place Ash 1", ("place Ash 1",))  # a tuple is a list of texts
    assert ">Ann<" in picture and ">Bob<" in picture and ">place Ash 1<" in picture
