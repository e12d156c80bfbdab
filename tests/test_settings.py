"""One rules resolution (risk_env.rules.config.resolve_rules) and one --set parser (parse_settings),
as every front end uses them."""

from __future__ import annotations

import pytest

import risk_env
from risk_env.errors import ConfigError
from risk_env.rules.config import PRESETS, RulesConfig, parse_settings, parse_value, resolve_rules


def test_layers_base_then_overrides_then_player_count() -> None:
    assert resolve_rules() == RulesConfig()
    cfg = resolve_rules("fast", num_players=3, turn_limit=50)
    assert (cfg.num_players, cfg.setup, cfg.turn_limit) == (3, "random", 50)
    # a preset's own player count is kept unless one is given
    assert resolve_rules("duel").num_players == 2
    # and a count that contradicts a preset made for a fixed count is refused, by every front end
    with pytest.raises(ConfigError, match="preset 'duel' is meant for 2 players, got num_players=3"):
        resolve_rules("duel", num_players=3)
    with pytest.raises(ConfigError, match="meant for 2 players"):
        resolve_rules(rules={"preset": "duel"}, num_players=3)
    # num_players wins over the base's count
    assert resolve_rules(rules={"num_players": 2, "turn_limit": 9}, num_players=5).num_players == 5


def test_every_form_of_rules_gives_the_same_config() -> None:
    want = RulesConfig.from_preset("tournament", num_players=2, turn_limit=90)
    base = RulesConfig.from_preset("tournament", num_players=2)
    assert resolve_rules(preset="tournament", num_players=2, turn_limit=90) == want
    assert resolve_rules(rules="tournament", num_players=2, turn_limit=90) == want
    assert resolve_rules(rules={"preset": "tournament", "turn_limit": 90}, num_players=2) == want
    assert resolve_rules(rules=base, num_players=2, turn_limit=90) == want
    assert resolve_rules(rules=want) is want  # nothing to change: the same object
    # a built RulesConfig has its derived switches filled in (setup, starting armies): they are
    # kept when only the player count changes, as RulesConfig.replace does
    four = resolve_rules(rules=RulesConfig(), num_players=2)
    assert (four.num_players, four.setup, four.starting_armies) == (2, "claim", 30)
    # a mapping's own switches lose to the overrides
    assert resolve_rules(rules={"turn_limit": 10}, turn_limit=20).turn_limit == 20


def test_conflicts_and_bad_input_raise_config_errors() -> None:
    with pytest.raises(ConfigError, match="either rules= or preset="):
        resolve_rules("fast", rules=RulesConfig())
    with pytest.raises(ConfigError, match="two rules presets"):
        resolve_rules("fast", rules={"preset": "duel"})
    with pytest.raises(ConfigError, match="unknown rules preset 'quick'; presets: " + ", ".join(PRESETS)):
        resolve_rules("quick")
    with pytest.raises(ConfigError, match="unknown rules option.*'colour'"):
        resolve_rules(rules={"colour": "blue"})
    with pytest.raises(ConfigError, match="rules must be a RulesConfig, a preset name"):
        resolve_rules(rules=42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="fortify='teleport' is not allowed"):
        resolve_rules(fortify="teleport")


def test_the_envs_resolve_rules_the_same_way() -> None:
    from risk_env.envs.single_agent import RiskSingleAgentEnv

    assert risk_env.raw_env(preset="duel").rules == resolve_rules("duel")
    got = risk_env.raw_env(num_players=3, rules=RulesConfig(), turn_limit=9).rules
    assert (
        got
        == RulesConfig().replace(num_players=3, turn_limit=9)
        == resolve_rules(rules=RulesConfig(), num_players=3, turn_limit=9)
    )
    with pytest.raises(ConfigError, match="either rules= or preset="):
        risk_env.raw_env(preset="fast", rules=RulesConfig())
    # the single-agent env: 2 players and no setup decisions unless told otherwise
    assert RiskSingleAgentEnv().rules == RulesConfig(num_players=2, setup="random")
    assert RiskSingleAgentEnv(num_players=3, preset="tournament").rules == resolve_rules("tournament", num_players=3)


def test_values() -> None:
    cases = {
        "null": None,
        "~": None,
        "True": True,
        "false": False,
        "300": 300,
        "-2": -2,
        "1_000": 1000,
        "2e6": 2_000_000.0,
        "1e-4": 1e-4,
        "0.5": 0.5,
        "none": "none",
        " connected ": "connected",
        "path/to/map.json": "path/to/map.json",
        "[random, balanced]": ["random", "balanced"],
        '["a", 2]': ["a", 2],
        "e5": "e5",
        "-": "-",
        "": "",
    }
    assert {k: parse_value(k) for k in cases} == cases


def test_settings_and_their_errors() -> None:
    assert parse_settings(["turn_limit=200", "fortify=connected", "turn_limit=300", "setup=null"]) == {
        "turn_limit": 300,
        "fortify": "connected",
        "setup": None,
    }
    assert parse_settings(None) == {} == parse_settings([])
    assert parse_settings(["ppo.learning_rate=1e-4"], what="a training key") == {"ppo.learning_rate": 1e-4}
    with pytest.raises(ConfigError, match=r"--set takes KEY=VALUE \(a rules switch\), got 'turn_limit'; switches: num_players"):
        parse_settings(["turn_limit"])
    with pytest.raises(ConfigError, match="got '=3'"):
        parse_settings(["=3"])


def test_cli_and_evaluation_read_set_alike() -> None:
    pytest.importorskip("typer")
    from risk_env.tools.cli import build_rules

    items = ["fortify=connected", "two_player=none", "card_trade=no_cards"]
    via_cli = build_rules(2, "classic", None, 77, items)
    assert via_cli == resolve_rules("classic", num_players=2, turn_limit=77, **parse_settings(items))
    assert (via_cli.two_player, via_cli.fortify, via_cli.uses_cards) == ("none", "connected", False)


# ---------------------------------------------------------------- numpy values and meaningless combinations


def test_numpy_scalars_are_read_as_python_values() -> None:
    import numpy as np

    cfg = RulesConfig(num_players=np.int64(3), turn_limit=np.int32(50), capitals=np.bool_(True), fortify=np.str_("connected"))
    assert cfg == RulesConfig(num_players=3, turn_limit=50, capitals=True, fortify="connected")
    assert type(cfg.num_players) is int and type(cfg.turn_limit) is int and type(cfg.capitals) is bool
    assert type(cfg.fortify) is str
    assert resolve_rules("fast", num_players=np.int64(2)).num_players == 2
    env = risk_env.env(num_players=np.int64(3))
    assert len(env.possible_agents) == 3
    for bad in (np.float64(3.0), 3.0, "3", True):
        with pytest.raises(ConfigError, match="num_players must be an integer from 2 to 6"):
            RulesConfig(num_players=bad)


@pytest.mark.parametrize(
    "switches, message",
    [
        ({"card_trade": "stars", "territory_bonus": "once_per_trade"}, r"territory_bonus='once_per_trade' has no effect.*stars"),
        ({"card_trade": "no_cards", "territory_bonus": "once_per_trade"}, r"has no effect with card_trade='no_cards'"),
        ({"mission_target_taken": "24_territories"}, r"mission_target_taken='24_territories' has no effect without secret"),
        ({"num_players": 3, "two_player": "none"}, r"two_player='none' is for 2-player games.*num_players=3"),
        ({"num_players": 4, "two_player": "allied"}, r"two_player='allied'.*is for 2 players"),
        ({"card_trade": "no_cards", "reroll_with_card": True}, r"reroll_with_card=True needs cards"),
        ({"num_players": 2, "two_player": "allied", "capitals": True}, r"cannot be combined with capitals"),
    ],
)
def test_switches_that_mean_nothing_together_are_refused(switches, message) -> None:
    with pytest.raises(ConfigError, match=message):
        RulesConfig(**switches)
    with pytest.raises(ConfigError, match=message):
        resolve_rules(rules=switches)


def test_inert_but_harmless_combinations_stay_accepted() -> None:
    # presets are meant to combine: the tournament's elimination_trade_at=5 is inert with stars
    # (no forced trade, docs/rules.md §6) and in 2-player games (an elimination ends them)
    assert RulesConfig.from_file("tournament_stars").elimination_trade_at == 5
    assert RulesConfig.from_preset("tournament", num_players=2).elimination_trade_at == 5
    assert RulesConfig(secret_missions=True, mission_target_taken="24_territories").mission_target_taken == "24_territories"
    assert RulesConfig(num_players=2, two_player="none").two_player == "none"


def test_rules_mappings_with_keys_that_are_not_names() -> None:
    for bad in ({1: 2}, {None: "x"}, {("num_players",): 3}):
        with pytest.raises(ConfigError, match="rules option names are text"):
            RulesConfig.from_dict(bad)
        with pytest.raises(ConfigError, match="rules option names are text"):
            resolve_rules(rules=bad)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"card_trade: stars\nturn_limit: \xff\n", r"is not UTF-8 text"),
        (b"[" * 5000 + b"]" * 5000, r"nests too deeply to be a rules file"),
        (b"1: 2\n", r"rules option names are text, got 1"),
        (b"turn_limit: 2024-01-01\n", r"turn_limit must be an integer from 1 to 10000000, got datetime.date"),
        (b"preset: 2024-01-01\n", r"a rules preset is a name"),
        (b"map: !!python/object:os.system ls\n", r"not valid YAML"),
        (b"turn_limit: !!float abc\n", r"not valid YAML: a tagged value does not read \(could not convert"),
        (b"turn_limit: !!bool maybe\n", r"not valid YAML: a tagged value does not read \('maybe'\)"),
        (b"- fast\n", r"must hold a mapping of rules switches"),
        (b"42\n", r"must hold a mapping of rules switches.*got int"),
        (b"territory_bonus: once_per_trade\ncard_trade: stars\n", r"has no effect with card_trade='stars'"),
        # (a key given twice: PyYAML kept the last silently)
        (b"preset: fast\npreset: classic\n", r"not valid YAML: the key 'preset' is given twice \(lines 1 and 2\); a key may"),
    ],
)
def test_broken_rules_files(tmp_path, content, message) -> None:
    path = tmp_path / "rules.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=message):
        RulesConfig.from_file(path)
    with pytest.raises(ConfigError, match=message):
        risk_env.env(preset=str(path))


_SWITCHES = ", ".join(RulesConfig.options())


@pytest.mark.parametrize("content", [b"", b"\n", b"# the classic rules\n"])
def test_an_empty_rules_file_is_refused(tmp_path, content) -> None:
    # (it was read as the classic rules)
    path = tmp_path / "rules.yaml"
    path.write_bytes(content)
    message = (
        f"rules file {path} is empty (or holds only comments): a rules file holds a mapping of rules switches (and "
        f"optionally 'preset'), {{}} for the classic rules; switches: {_SWITCHES}"
    )
    for call in (lambda: RulesConfig.from_file(path), lambda: resolve_rules(str(path))):
        with pytest.raises(ConfigError) as info:
            call()
        assert str(info.value) == message
    path.write_text("{}\n", encoding="utf-8")
    assert RulesConfig.from_file(path) == RulesConfig()


def test_a_map_path_in_a_rules_file_is_read_from_the_files_folder(tmp_path, monkeypatch) -> None:
    # (map: mymap.json was read against the working directory)
    from importlib.resources import files

    small = files("risk_env.rules.maps").joinpath("small.json").read_text(encoding="utf-8")
    folder = tmp_path / "rules"
    (folder / "maps").mkdir(parents=True)
    (folder / "mymap.json").write_text(small, encoding="utf-8")
    (folder / "maps" / "mine.json").write_text(small, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for written, read in (
        ("mymap.json", folder / "mymap.json"),
        ("maps/mine.json", folder / "maps" / "mine.json"),
        (str(folder / "mymap.json"), folder / "mymap.json"),  # an absolute path is kept
        ("small", "small"),  # a shipped map's name is kept
    ):
        path = folder / "rules.yaml"
        path.write_text(f"map: {written}\nnum_players: 3\n", encoding="utf-8")
        for cfg in (RulesConfig.from_file(path), resolve_rules(str(path)), resolve_rules(rules={"preset": str(path)})):
            assert cfg.map == str(read)
            assert risk_env.Game(cfg).T == 9
    # given relative to the working directory, the rules file's folder is too
    monkeypatch.chdir(tmp_path)
    (folder / "rules.yaml").write_text("map: mymap.json\n", encoding="utf-8")
    assert RulesConfig.from_file("rules/rules.yaml").map == "rules/mymap.json"
    assert risk_env.Game(RulesConfig.from_file("rules/rules.yaml")).T == 9


def test_a_preset_name_given_as_a_rules_file_is_told_what_it_is() -> None:
    # (from_file("fast") said "unknown rules preset 'fast': names are lower case ('fast')")
    tail = "rules files: stars, tournament_stars, or the path of a rules .yaml file"
    cases = [
        ("fast", "'fast' is a preset, not a rules file: use RulesConfig.from_preset('fast') (resolve_rules and --rules take "),
        (
            "Fast",
            "'Fast' is not a rules file: names are lower case, and 'fast' is a preset: use RulesConfig.from_preset('fast') "
            "(resolve_rules and --rules take ",
        ),
    ]
    for given, start in cases:
        with pytest.raises(ConfigError) as info:
            RulesConfig.from_file(given)
        assert str(info.value) == start + "either); " + tail
    with pytest.raises(ConfigError) as info:
        RulesConfig.from_file("Stars")
    assert str(info.value).startswith("unknown rules file 'Stars': names are lower case ('stars'); presets: classic")
    with pytest.raises(ConfigError) as info:
        resolve_rules("Fast")  # (where presets are taken, the capital is the one thing wrong)
    assert str(info.value).startswith("unknown rules preset 'Fast': names are lower case ('fast'); presets: classic")
    assert resolve_rules("fast") == RulesConfig.from_preset("fast")
