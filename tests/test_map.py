"""The classic board's facts and map-file validation (docs/rules.md §1, §2)."""

from __future__ import annotations

import copy
import json
import re
from collections import deque

import numpy as np
import pytest

from risk_env import Game, MapError, RulesConfig, load_map
from risk_env.rules.map import builtin_maps, map_from_dict


@pytest.fixture(scope="module")
def classic():
    return load_map("classic")


def test_classic_counts(classic):
    assert classic.num_territories == 42
    assert classic.num_borders == 83
    assert len(classic.continent_names) == 6
    assert len(set(classic.territory_names)) == 42
    # every border in both directions in the edge list, adjacency symmetric, no self-borders
    assert len(classic.edge_src) == 2 * 83
    assert classic.adjacency.sum() == 2 * 83
    assert np.array_equal(classic.adjacency, classic.adjacency.T)
    assert not classic.adjacency.diagonal().any()


def test_classic_continents_and_bonuses(classic):
    expected = {
        "Asia": (7, 12),
        "North America": (5, 9),
        "Europe": (5, 7),
        "Africa": (3, 6),
        "South America": (2, 4),
        "Australia": (2, 4),
    }
    got = {
        name: (int(classic.continent_bonus[c]), int(classic.continent_members[c].sum()))
        for c, name in enumerate(classic.continent_names)
    }
    assert got == expected
    # each territory in exactly one continent
    assert (classic.continent_members.sum(axis=0) == 1).all()
    for t in range(42):
        assert classic.continent_members[classic.territory_continent[t], t]


@pytest.mark.parametrize(
    "a, b",
    [
        ("Alaska", "Kamchatka"),
        ("Brazil", "North Africa"),
        ("Greenland", "Iceland"),
        ("Siam", "Indonesia"),
        ("East Africa", "Middle East"),
        ("Alaska", "Northwest Territory"),
        ("Central America", "Venezuela"),
        ("Great Britain", "Iceland"),
        ("Egypt", "Southern Europe"),
        ("Ukraine", "Afghanistan"),
        ("Western Australia", "Eastern Australia"),
    ],
)
def test_classic_known_borders(classic, a, b):
    i, j = classic.id_of(a), classic.id_of(b)
    assert classic.adjacency[i, j] and classic.adjacency[j, i]
    assert j in classic.neighbors[i] and i in classic.neighbors[j]


@pytest.mark.parametrize(
    "a, b",
    [("Alaska", "Greenland"), ("Brazil", "Egypt"), ("Siam", "Eastern Australia"), ("Iceland", "Ukraine"), ("Japan", "China")],
)
def test_classic_known_non_borders(classic, a, b):
    assert not classic.adjacency[classic.id_of(a), classic.id_of(b)]


# The standard board, written out independently of the shipped map file.
STANDARD_CONTINENTS = {
    "North America": "Alaska, Northwest Territory, Greenland, Alberta, Ontario, Quebec, Western United States, "
    "Eastern United States, Central America",
    "South America": "Venezuela, Peru, Brazil, Argentina",
    "Europe": "Iceland, Scandinavia, Ukraine, Great Britain, Northern Europe, Western Europe, Southern Europe",
    "Africa": "North Africa, Egypt, East Africa, Congo, South Africa, Madagascar",
    "Asia": "Ural, Siberia, Yakutsk, Kamchatka, Irkutsk, Mongolia, Japan, Afghanistan, China, Middle East, India, Siam",
    "Australia": "Indonesia, New Guinea, Western Australia, Eastern Australia",
}
STANDARD_BORDERS = """
Alaska-Northwest Territory; Alaska-Alberta; Alaska-Kamchatka; Northwest Territory-Alberta;
Northwest Territory-Ontario; Northwest Territory-Greenland; Greenland-Ontario; Greenland-Quebec;
Greenland-Iceland; Alberta-Ontario; Alberta-Western United States; Ontario-Quebec;
Ontario-Western United States; Ontario-Eastern United States; Quebec-Eastern United States;
Western United States-Eastern United States; Western United States-Central America;
Eastern United States-Central America; Central America-Venezuela;
Venezuela-Peru; Venezuela-Brazil; Peru-Brazil; Peru-Argentina; Brazil-Argentina; Brazil-North Africa;
Iceland-Scandinavia; Iceland-Great Britain; Scandinavia-Great Britain; Scandinavia-Northern Europe;
Scandinavia-Ukraine; Great Britain-Northern Europe; Great Britain-Western Europe;
Northern Europe-Western Europe; Northern Europe-Southern Europe; Northern Europe-Ukraine;
Western Europe-Southern Europe; Western Europe-North Africa; Southern Europe-Ukraine;
Southern Europe-North Africa; Southern Europe-Egypt; Southern Europe-Middle East; Ukraine-Ural;
Ukraine-Afghanistan; Ukraine-Middle East;
North Africa-Egypt; North Africa-East Africa; North Africa-Congo; Egypt-East Africa; Egypt-Middle East;
East Africa-Congo; East Africa-South Africa; East Africa-Madagascar; East Africa-Middle East;
Congo-South Africa; South Africa-Madagascar;
Ural-Siberia; Ural-China; Ural-Afghanistan; Siberia-Yakutsk; Siberia-Irkutsk; Siberia-Mongolia;
Siberia-China; Yakutsk-Kamchatka; Yakutsk-Irkutsk; Kamchatka-Irkutsk; Kamchatka-Mongolia;
Kamchatka-Japan; Irkutsk-Mongolia; Mongolia-Japan; Mongolia-China; Afghanistan-China;
Afghanistan-Middle East; Afghanistan-India; China-India; China-Siam; Middle East-India; India-Siam;
Siam-Indonesia;
Indonesia-New Guinea; Indonesia-Western Australia; New Guinea-Western Australia;
New Guinea-Eastern Australia; Western Australia-Eastern Australia
"""


def test_classic_is_the_standard_board(classic):
    pairs = {frozenset(x.strip() for x in b.split("-")) for b in STANDARD_BORDERS.replace("\n", " ").split(";")}
    assert len(pairs) == 83
    shipped = {frozenset((classic.name_of(a), classic.name_of(b))) for a, b in classic.borders}
    assert shipped == pairs
    for cont, names in STANDARD_CONTINENTS.items():
        c = classic.continent_names.index(cont)
        members = {classic.name_of(int(t)) for t in np.flatnonzero(classic.continent_members[c])}
        assert members == {x.strip() for x in names.split(",")}


def test_classic_connected_and_degrees(classic):
    seen = {0}
    q = deque([0])
    while q:
        u = q.popleft()
        for v in classic.neighbors[u]:
            if v not in seen:
                seen.add(v)
                q.append(v)
    assert len(seen) == 42
    deg = {classic.territory_names[t]: len(classic.neighbors[t]) for t in range(42)}
    assert deg["Ukraine"] == 6 and deg["Argentina"] == 2 and deg["Madagascar"] == 2
    assert deg["Middle East"] == 6 and deg["China"] == 6 and deg["Kamchatka"] == 5


def test_classic_cards(classic):
    # 42 territory cards, 14 of each symbol, plus 2 wilds (docs/rules.md §2)
    assert classic.num_cards == 44
    sym = classic.card_symbol.tolist()
    assert [sym[:42].count(k) for k in range(3)] == [14, 14, 14]
    assert sym[42:] == [3, 3]
    assert classic.card_name(42) == "Wild 1" and classic.card_of("Wild 2") == 43
    assert classic.card_of("Alaska") == classic.id_of("Alaska")


def test_names_round_trip(classic):
    for t in range(42):
        assert classic.id_of(classic.name_of(t)) == t
    assert classic.id_of("northwest territory") == classic.id_of("Northwest Territory")
    with pytest.raises(ValueError, match="unknown territory"):
        classic.id_of("Atlantis")


def test_builtin_maps_and_small():
    assert {"classic", "small"} <= set(builtin_maps())
    small = load_map("small")
    assert small.num_territories == 9 and small.num_borders == 13 and small.num_cards == 11
    assert list(small.continent_bonus) == [2, 3, 2]
    g = Game(RulesConfig(num_players=3, map="small", setup="random"))
    assert g.T == 9


def test_to_dict_round_trip(classic):
    again = map_from_dict(classic.to_dict())
    assert again.territory_names == classic.territory_names
    assert again.borders == classic.borders
    assert np.array_equal(again.card_symbol, classic.card_symbol)
    assert np.array_equal(again.continent_bonus, classic.continent_bonus)


# ---------------------------------------------------------------- broken map files


def _tiny() -> dict:
    return {
        "name": "tiny",
        "continents": [{"name": "North", "bonus": 2}, {"name": "South", "bonus": 1}],
        "territories": [
            {"name": "A", "continent": "North"},
            {"name": "B", "continent": "North"},
            {"name": "C", "continent": "South"},
            {"name": "D", "continent": "South"},
        ],
        "borders": [["A", "B"], ["B", "C"], ["C", "D"]],
    }


def _write(tmp_path, data, name="map.json") -> str:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(p)


def test_valid_tiny_map_file_loads(tmp_path):
    m = load_map(_write(tmp_path, _tiny()))
    assert m.num_territories == 4 and m.num_borders == 3
    g = Game(RulesConfig(num_players=2, map=_write(tmp_path, _tiny(), "t2.json"), setup="random", two_player="none"))
    assert g.T == 4


def _broken(mutate):
    d = copy.deepcopy(_tiny())
    mutate(d)
    return d


BROKEN = {
    "two territories at one point": (  # (was accepted, and the drawing lost one of them)
        lambda d: [t.update(xy=[10, 20]) for t in d["territories"][1:3]],
        r"territories 'B' and 'C' are drawn at one point \[10, 20\]; give each its own xy",
    ),
    "border to an unknown territory": (
        lambda d: d["borders"].append(["D", "Atlantis"]),
        r"unknown territory 'Atlantis'",
    ),
    "one-sided border listed twice (both directions)": (
        lambda d: d["borders"].append(["B", "A"]),
        r"duplicate border 'B' - 'A'",
    ),
    "self border": (lambda d: d["borders"].append(["C", "C"]), r"joins 'C' to itself"),
    "disconnected graph": (
        lambda d: d["borders"].remove(["B", "C"]),
        r"do not connect every territory.*C, D",
    ),
    "territory in an unknown continent": (
        lambda d: d["territories"][3].update(continent="Atlantis"),
        r"territory 'D' is in unknown continent 'Atlantis'",
    ),
    "territory in two continents": (
        lambda d: d["territories"][3].update(continent=["North", "South"]),
        r"territory 'D'.*'continent' must be str",
    ),
    "territory listed again in another continent": (
        lambda d: d["territories"].append({"name": "A", "continent": "South"}),
        r"duplicate territory name 'A'",
    ),
    "duplicate continent": (
        lambda d: d["continents"].append({"name": "North", "bonus": 3}),
        r"duplicate continent name 'North'",
    ),
    "continent without territories": (
        lambda d: d["continents"].append({"name": "Empty", "bonus": 3}),
        r"continent 'Empty' has no territory",
    ),
    "negative bonus": (lambda d: d["continents"][0].update(bonus=-1), r"negative bonus"),
    "missing borders key": (lambda d: d.pop("borders"), r"missing key 'borders'"),
    "bad card symbol": (lambda d: d["territories"][0].update(card="dragon"), r"card symbol 'dragon'"),
    "malformed border": (lambda d: d["borders"].append(["A"]), r"border #3 must be a list of two territory names"),
    "empty territory name": (lambda d: d["territories"][0].update(name=" "), r"territory #0 has an empty name"),
    "unknown top-level key": (lambda d: d.update(bonuses=[]), r"unknown key 'bonuses'; a map holds name, description, canvas"),
    "unknown territory key": (lambda d: d["territories"][0].update(colour="red"), r"territory 'A': unknown key 'colour'"),
    "unknown continent key": (lambda d: d["continents"][0].update(size=2), r"continent 'North': unknown key 'size'"),
    "canvas not a list": (lambda d: d.update(canvas="wide"), r"'canvas' must be \[width, height\]"),
    "canvas of three numbers": (lambda d: d.update(canvas=[1, 2, 3]), r"'canvas' must be \[width, height\]"),
    "canvas with a zero side": (lambda d: d.update(canvas=[100, 0]), r"two numbers above 0"),
    "canvas of strings": (lambda d: d.update(canvas=["100", "50"]), r"'canvas' must be"),
    "canvas with a bool": (lambda d: d.update(canvas=[True, 50]), r"'canvas' must be"),
    "xy a dict": (lambda d: d["territories"][0].update(xy={"x": 1}), r"territory 'A' 'xy' must be \[x, y\]"),
    "xy of one number": (lambda d: d["territories"][0].update(xy=[5]), r"'xy' must be \[x, y\]"),
    "xy off the canvas": (lambda d: d["territories"][0].update(xy=[5, 700]), r"on the canvas \(0..1000, 0..600\)"),
    "xy not finite": (lambda d: d["territories"][0].update(xy=[float("nan"), 1]), r"'xy' must be"),
    "description not text": (lambda d: d.update(description=["x"]), r"'description' must be str"),
    "bonus too large": (lambda d: d["continents"][0].update(bonus=10**12), r"bonuses are 0..1000"),
    "bonus a float": (lambda d: d["continents"][0].update(bonus=2.0), r"'bonus' must be int"),
    "too many wild cards": (lambda d: d.update(wild_cards=10**9), r"'wild_cards' must be an integer from 0 to 100"),
    "map name empty": (lambda d: d.update(name=""), r"'name' is empty"),
    "continent name with a line break": (
        lambda d: [d["continents"][0].update(name="No\nrth"), [t.update(continent="No\nrth") for t in d["territories"][:2]]],
        r"continent #0: the name 'No\\nrth' must be printable",
    ),
    "territory not an object": (lambda d: d["territories"].append("E"), r"territory #4 must be an object, got str"),
}


@pytest.mark.parametrize("problem", list(BROKEN))
def test_broken_map_file_names_the_problem(tmp_path, problem):
    mutate, pattern = BROKEN[problem]
    path = _write(tmp_path, _broken(mutate))
    with pytest.raises(MapError, match=pattern):
        load_map(path)
    # the game refuses the map the same way
    with pytest.raises(MapError, match=pattern):
        Game(RulesConfig(num_players=2, map=path, setup="random", two_player="none"))


def test_invalid_json(tmp_path):
    path = _write(tmp_path, '{"name": "x", "continents": [}')
    with pytest.raises(MapError, match=r"not valid JSON.*line 1 column"):
        load_map(path)


def test_missing_file_and_unknown_name(tmp_path):
    with pytest.raises(MapError, match="cannot read map file"):
        load_map(str(tmp_path / "nope.json"))
    with pytest.raises(MapError, match=r"unknown map 'atlantis'.*classic"):
        load_map("atlantis")


def test_not_an_object(tmp_path):
    with pytest.raises(MapError, match="must be a JSON object"):
        load_map(_write(tmp_path, "[1, 2, 3]"))


def test_map_error_is_value_error():
    assert issubclass(MapError, ValueError)


def test_a_map_error_names_the_file(tmp_path):
    path = _write(tmp_path, _broken(lambda d: d.update(canvas=[0, 1])))
    with pytest.raises(MapError, match=r"map file '.*map.json' 'tiny': 'canvas'"):
        load_map(path)


def test_map_file_that_is_not_utf8_or_nests_too_deeply(tmp_path):
    p = tmp_path / "latin1.json"
    p.write_bytes(json.dumps(_tiny()).replace('"A"', '"\u00c5"').encode("latin-1"))  # Å as one latin-1 byte
    with pytest.raises(MapError, match=r"latin1.json' is not UTF-8 text"):
        load_map(str(p))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(MapError, match="nests JSON too deeply"):
        load_map(str(deep))
    long_number = tmp_path / "long.json"  # (a ValueError of Python's limit on integer digits got past MapError)
    long_number.write_text(json.dumps(_tiny()).replace('"bonus": 2', '"bonus": ' + "9" * 5000), encoding="utf-8")
    with pytest.raises(MapError, match=r"long.json' is not JSON that Python reads: Exceeds the limit"):
        load_map(str(long_number))
    with pytest.raises(MapError, match="cannot read map file"):
        load_map(tmp_path)  # a folder


# ---------------------------------------------------------------- names that round-trip through move text

REFUSED_NAMES = {
    "A->B": "a separator of the move notation",
    "Cape Town, North": "a separator of the move notation",
    "dice=3": "a separator of the move notation",
    " Leading": "spaces at an end",
    "Trailing ": "spaces at an end",
    "Two  Spaces": "two spaces in a row",
    "Tab\tbed": "unprintable character '\\t'",
    "Line\nbreak": "unprintable character '\\n'",
    "No\u00a0break": "unprintable character",
    "Wild 1": "a wild card's name",
    "wild2": "a wild card's name",
    "WILD  3": "spaces at an end or two spaces",
}


@pytest.mark.parametrize("name", list(REFUSED_NAMES))
def test_names_move_text_cannot_read_back_are_refused(name):
    d = _tiny()
    d["territories"][1]["name"] = name
    d["borders"] = [[name if x == "B" else x for x in b] for b in d["borders"]]
    with pytest.raises(MapError, match=r"territory #1 cannot be named .*" + re.escape(REFUSED_NAMES[name])):
        map_from_dict(d)


def test_names_differing_only_in_case_are_refused():
    d = _tiny()
    d["territories"][1]["name"] = "a"
    d["borders"] = [["A", "a"], ["a", "C"], ["C", "D"]]
    with pytest.raises(MapError, match=r"'A' and 'a' differ only in case"):
        map_from_dict(d)


ODD_BUT_FINE = ["Wild West", "Wilderness", "wild", "St. John's", "x>y", "A-B", "12", "end", "attack", "Área 51", "Dice 3"]


def test_accepted_odd_names_survive_move_text_and_records():
    """Every move of games on a map with odd (accepted) names reads back to itself, and the record replays."""
    from risk_env import ActionCodec
    from risk_env.envs.codec import Selection
    from risk_env.records.record import GameRecord
    from risk_env.records.recorder import GameRecorder

    names = ODD_BUT_FINE
    d = {
        "name": "odd names",
        "continents": [{"name": "One", "bonus": 2}, {"name": "Two", "bonus": 3}],
        "territories": [{"name": t, "continent": "One" if i % 2 else "Two"} for i, t in enumerate(names)],
        "borders": [[names[i], names[i + 1]] for i in range(len(names) - 1)] + [[names[0], names[-1]]],
    }
    m = map_from_dict(d)
    assert m.card_of("wild") == m.id_of("wild") and m.card_of("Wild 2") == m.num_territories + 1
    for rules in (
        RulesConfig(num_players=3, setup="claim", turn_limit=12),
        RulesConfig(num_players=2, card_trade="stars", defender_dice="choose", turn_limit=12),
    ):
        game = Game(rules, game_map=m)
        codec = ActionCodec(game)
        rng = np.random.default_rng(0)
        for seed in range(3):
            s = game.new_game(seed)
            rec = GameRecorder(game, seed)
            sel = Selection()
            while s.phase != 7:
                move = codec.step(s, int(rng.choice(np.flatnonzero(codec.mask(s, sel)))), sel)
                if move is not None:
                    text = game.move_to_text(move)
                    assert game.parse_move(s, text) == move, text
                    rec.add(move)
            again = GameRecord.from_json(rec.finish(s).to_json())
            assert again.verify() == s
