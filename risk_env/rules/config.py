"""Rule switches: one frozen :class:`RulesConfig`, and named presets.

Every switch names the docs/rules.md section it comes from. Unknown option names,
unknown values, values of the wrong type, out-of-range numbers and switches that the
other switches make meaningless (``card_trade="stars"`` with ``territory_bonus="once_per_trade"``)
raise :class:`~risk_env.errors.ConfigError` saying what is allowed. Numpy scalars are read
as the Python values they hold (``num_players=np.int64(3)``).

>>> cfg = RulesConfig(num_players=3, fortify="connected")
>>> cfg.fortify, cfg.starting_armies
('connected', 35)
>>> RulesConfig.from_preset("fast", num_players=2).setup
'random'

Every front end (the envs, evaluation, training, the command line) turns its
arguments into a :class:`RulesConfig` with :func:`resolve_rules`, and reads
``--set KEY=VALUE`` options with :func:`parse_settings`:

>>> resolve_rules("fast", num_players=3, **parse_settings(["turn_limit=50", "fortify=connected"])).turn_limit
50
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from .map import names_a_file

__all__ = [
    "RulesConfig",
    "PRESETS",
    "STARTING_ARMIES",
    "resolve_rules",
    "check_player_count",
    "check_preset_players",
    "preset_player_count",
    "rules_player_count",
    "parse_value",
    "parse_settings",
    "rules_files",
    "load_rules_file",
]

STARTING_ARMIES = {2: 40, 3: 35, 4: 30, 5: 25, 6: 20}
"""Starting armies per player by player count (docs/rules.md §3)."""

_CHOICES: dict[str, tuple[str, ...]] = {
    "setup": ("claim", "deal", "random"),
    "two_player": ("neutral", "none", "allied"),
    "card_trade": ("escalating", "escalating_reset", "fixed_by_symbol", "slow_escalation", "stars", "no_cards"),
    "territory_bonus": ("once_per_turn", "once_per_trade"),
    "defender_dice": ("max", "choose"),
    "fortify": ("adjacent", "connected"),
    "truncation_reward": ("draw", "rank"),
    "mission_target_taken": ("24_territories", "holder_wins"),
}


@dataclass(frozen=True)
class RulesConfig:
    """All rule switches of one game (immutable; hashable; JSON-compatible via :meth:`to_dict`).

    Attributes:
        num_players: 2..6 (docs/rules.md §3).
        map: a shipped map name (``"classic"``, ``"small"``) or a path to a map file (§1); a :class:`~pathlib.Path` is
            always a file (``Path("classic")`` is the file ``./classic``).
        setup: ``"claim"`` (default for 3-6 players), ``"deal"`` (default for 2
            players, §7) or ``"random"`` (no setup decisions) (§3). ``None``
            means the default for the player count.
        two_player: ``"neutral"`` (§7 default: a neutral third army),
            ``"none"`` (a plain duel, no neutral) or ``"allied"`` (the 1975
            two-player rules, §7: each player claims a third of the map, the
            rest holds the allied army with 2 armies a territory; after each
            player's attacks the opponent reinforces and attacks with the allied
            army). ``"none"`` and ``"allied"`` need ``num_players=2``
            (``"neutral"``, the default, means nothing for 3+ players);
            ``"allied"`` cannot be combined with ``secret_missions`` or ``capitals``.
        starting_armies: per player; ``None`` means the §3 table
            (40/35/30/25/20). The 2-player neutral gets the same number.
        card_trade: set values (§4.1, §6): ``"escalating"`` 4, 6, 8, 10, 12, 15,
            +5 each with one counter for the whole game; ``"escalating_reset"``
            back to 4 after 15; ``"slow_escalation"`` 4, 5, 6, ...;
            ``"fixed_by_symbol"`` three infantry 4, three cavalry 6, three
            artillery 8, one of each 10 (a wild counts as whatever symbol makes
            the set worth most); ``"stars"`` any cards worth 2..10 stars
            together (infantry and cavalry cards 1 star, artillery cards and
            wilds 2) bring 2, 4, 7, 10, 13, 17, 21, 25, 30 armies, with no
            forced trade and no +2 territory bonus (§6); ``"no_cards"`` no cards at all.
        territory_bonus: the +2 armies for a traded card showing an owned
            territory: ``"once_per_turn"`` (default) or ``"once_per_trade"`` (§4.1);
            ``"once_per_trade"`` needs sets of cards (not ``"stars"`` or ``"no_cards"``).
        elimination_trade_at: after taking an eliminated player's cards, a
            hand of at least this many must be traded down to 4 at once (§4.2;
            default 6, variant 5). Inert without sets of cards or with 2 players,
            and still accepted there, as presets such as ``tournament`` set it.
        defender_dice: ``"max"`` (default) or ``"choose"``: the defending
            player picks 1 or 2 dice before each roll (§4.2), a blitz's rolls
            included (the defender decides every round of a blitz).
        reroll_with_card: expert rule (§8): once per battle the attacker may re-roll one
            of its dice after a roll, when it holds the card of the attacking or the
            attacked territory. Default False.
        die_to_six: expert rule (§8): once per turn the attacker may turn one of its
            dice into a six after a roll. Default False.
        fortify: ``"adjacent"`` (default) or ``"connected"`` (through own territories) (§4.3).
        turn_limit: player turns (each player's turn counts one) after which
            the episode is truncated (§4.5); >= 1.
        truncation_reward: ``"draw"`` (every surviving agent gets 0) or
            ``"rank"`` (survivors ranked by territories, then armies: the
            best gets +1, the worst -1, linear between; ties share) (§4.5).
        secret_missions: deal each player a secret mission at setup; completing
            it wins at once (§8). Needs a map with the classic continents.
        mission_target_taken: what a "destroy colour X" mission becomes when
            someone else eliminates X: ``"holder_wins"`` (default: its holder
            wins at once) or ``"24_territories"`` (the mission becomes "hold 24
            territories") (§8). ``"24_territories"`` needs ``secret_missions``.
        capitals: each player chooses a capital among its territories after
            setup; a player holding every capital wins (§8).
    """

    num_players: int = 4
    map: str = "classic"
    setup: str | None = None
    two_player: str = "neutral"
    starting_armies: int | None = None
    card_trade: str = "escalating"
    territory_bonus: str = "once_per_turn"
    elimination_trade_at: int = 6
    defender_dice: str = "max"
    fortify: str = "adjacent"
    reroll_with_card: bool = False
    die_to_six: bool = False
    turn_limit: int = 1000
    truncation_reward: str = "draw"
    secret_missions: bool = False
    mission_target_taken: str = "holder_wins"
    capitals: bool = False

    def __post_init__(self) -> None:
        _plain_values(self)
        n = check_player_count(self.num_players)
        if not isinstance(self.map, str) or not self.map:
            raise ConfigError(f"map must be a map name or a path to a map file, got {self.map!r}")
        for key, allowed in _CHOICES.items():
            value = getattr(self, key)
            if key == "setup" and value is None:
                object.__setattr__(self, "setup", "deal" if self.has_neutral else "claim")
                continue
            if value not in allowed:
                raise ConfigError(f"{key}={value!r} is not allowed; choose one of: {', '.join(allowed)}")
        for key in ("reroll_with_card", "die_to_six"):
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(f"{key} must be true or false, got {getattr(self, key)!r}")
        if self.reroll_with_card and not self.uses_cards:
            raise ConfigError("reroll_with_card=True needs cards (it depends on the cards held); card_trade='no_cards' has none")
        if self.starting_armies is None:
            object.__setattr__(self, "starting_armies", STARTING_ARMIES[n])
        for key, lo, hi in (
            ("starting_armies", 1, 10_000),
            ("elimination_trade_at", 5, 100),
            ("turn_limit", 1, 10_000_000),
        ):
            v = getattr(self, key)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                # (a whole float read as an integer, such as a config's 1e30, in short: not its 31 digits; digits typed as
                # digits stay as typed)
                as_float = isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10**15 and int(float(v)) == v
                shown = f"{v:.15g}" if as_float and int(float(f"{v:.15g}")) == v else repr(v)
                raise ConfigError(f"{key} must be an integer from {lo} to {hi}, got {shown}")
        for key in ("secret_missions", "capitals"):
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(f"{key} must be true or false, got {getattr(self, key)!r}")
        _check_combinations(self)
        if self.two_player == "allied":
            if n != 2:
                raise ConfigError(
                    f"two_player='allied' (the 1975 two-player rules, docs/rules.md §7) is for 2 players, got "
                    f"num_players={n}; with more players there is no 'opposing player' to command the allied army"
                )
            for key in ("secret_missions", "capitals"):
                if getattr(self, key):
                    raise ConfigError(
                        f"two_player='allied' cannot be combined with {key}=True: the allied army is neither a player "
                        "nor the neutral, and the 1975 two-player rules define no missions or capitals for it "
                        "(docs/rules.md §7, §8)"
                    )

    @property
    def has_neutral(self) -> bool:
        """True for a 2-player game with the neutral army (docs/rules.md §7)."""
        return self.num_players == 2 and self.two_player == "neutral"

    @property
    def has_allied(self) -> bool:
        """True for a 2-player game with the allied army (``two_player="allied"``, docs/rules.md §7)."""
        return self.two_player == "allied"

    @property
    def uses_cards(self) -> bool:
        return self.card_trade != "no_cards"

    def replace(self, **changes: Any) -> RulesConfig:
        """A copy with some switches changed (validated like the constructor)."""
        return RulesConfig.from_dict({**self.to_dict(), **changes})

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible dict of every switch."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if not f.name.startswith("_")}

    def differences(self, other: RulesConfig) -> list[str]:
        """The switches (:meth:`options`, in their order) whose values differ between these rules and ``other``.

        >>> RulesConfig.from_preset("fast").differences(RulesConfig.from_preset("fast", card_trade="no_cards"))
        ['card_trade']
        """
        return [k for k in self.options() if getattr(self, k) != getattr(other, k)]

    @classmethod
    def options(cls) -> list[str]:
        """Names of every switch."""
        return [f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")]

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Each switch's docs/rules.md default (``setup`` and ``starting_armies``: None, the player count's).

        >>> RulesConfig.defaults()["turn_limit"], RulesConfig.defaults()["fortify"]
        (1000, 'adjacent')
        """
        return {f.name: f.default for f in dataclasses.fields(cls) if not f.name.startswith("_")}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RulesConfig:
        """Build from a dict, rejecting unknown keys.

        Raises:
            ConfigError: an unknown key (the message lists the allowed ones) or a bad value.
        """
        if not isinstance(data, Mapping):
            raise ConfigError(f"rules must be a mapping of option names to values, got {type(data).__name__}")
        odd = [k for k in data if not isinstance(k, str)]
        if odd:
            raise ConfigError(f"rules option names are text, got {odd[0]!r}; allowed: {', '.join(cls.options())}")
        unknown = sorted(set(data) - set(cls.options()))
        if unknown:
            raise ConfigError(f"unknown rules option(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(cls.options())}")
        return cls(**dict(data))

    @classmethod
    def from_preset(cls, preset: str, **overrides: Any) -> RulesConfig:
        """A named preset (see :data:`PRESETS`) with optional overrides.

        Raises:
            ConfigError: unknown preset name or bad override.
        """
        if preset not in PRESETS:
            raise ConfigError(f"unknown rules preset {preset!r}; presets: {', '.join(PRESETS)}")
        return cls.from_dict({**PRESETS[preset], **overrides})

    @classmethod
    def from_file(cls, name_or_path: str | os.PathLike[str], **overrides: Any) -> RulesConfig:
        """A rules file: a shipped one by name (:func:`rules_files`, e.g. ``"stars"``) or a
        YAML file by path, holding a mapping of switches and optionally a ``preset`` to start
        from; ``overrides`` are applied on top.

        A relative map path in the file (``map: mymap.json``) is read relative to the file's folder
        (:func:`load_rules_file`).

        Raises:
            ConfigError: no such shipped name or file (the message lists the shipped names), a preset's name
                (``"fast"``: the message says to use :meth:`from_preset`), a file that is empty, not YAML or not a
                mapping, or a bad switch in it.
        """
        if isinstance(name_or_path, str) and name_or_path not in rules_files() and not Path(name_or_path).exists():
            low = name_or_path.lower()
            if low in PRESETS:  # (a preset's name in from_file was told its name is lower case)
                start = (
                    f"{name_or_path!r} is a preset, not a rules file"
                    if low == name_or_path
                    else f"{name_or_path!r} is not a rules file: names are lower case, and {low!r} is a preset"
                )
                raise ConfigError(
                    f"{start}: use RulesConfig.from_preset({low!r}) (resolve_rules and --rules take either); "
                    f"rules files: {', '.join(rules_files()) or 'none'}, or the path of a rules .yaml file"
                )
        return resolve_rules(rules={**load_rules_file(name_or_path), **overrides})


_INT_SWITCHES = ("num_players", "starting_armies", "elimination_trade_at", "turn_limit")
_BOOL_SWITCHES = ("reroll_with_card", "die_to_six", "secret_missions", "capitals")


def _plain_values(cfg: RulesConfig) -> None:
    """Numpy scalars become the Python values they stand for (``np.int64(3)`` -> ``3``,
    ``np.bool_(True)`` -> ``True``, ``np.str_`` -> ``str``), and a map's ``Path`` its text, so a config holds plain
    JSON values whatever the caller computed them with. Other types are left for the checks."""
    for key in _INT_SWITCHES:
        v = getattr(cfg, key)
        if isinstance(v, np.integer):
            object.__setattr__(cfg, key, int(v))
    for key in _BOOL_SWITCHES:
        v = getattr(cfg, key)
        if isinstance(v, np.bool_):
            object.__setattr__(cfg, key, bool(v))
    for key in ("map", *_CHOICES):
        v = getattr(cfg, key)
        if isinstance(v, np.str_):
            object.__setattr__(cfg, key, str(v))
    if isinstance(cfg.map, os.PathLike):  # a map file's path, as its text (as resolve_rules takes a rules file's)
        text = os.fspath(cfg.map)
        if not names_a_file(text):  # (Path("classic") is the file ./classic, not the shipped map of that name)
            text = os.path.join(os.curdir, text)
        object.__setattr__(cfg, "map", text)


def _check_combinations(cfg: RulesConfig) -> None:
    """Refuse a switch set away from its default where the other switches take away its meaning
    (docs/rules.md §6, §7, §8; the audit of every pair is in docs/reliability.md).

    Raises:
        ConfigError: the message names both switches, why the one has no effect, and what to do.
    """
    if cfg.territory_bonus != "once_per_turn" and cfg.card_trade in ("stars", "no_cards"):
        why = (
            "a stars trade brings no +2 territory bonus (docs/rules.md §6)" if cfg.card_trade == "stars" else "there are no cards"
        )
        raise ConfigError(
            f"territory_bonus={cfg.territory_bonus!r} has no effect with card_trade={cfg.card_trade!r}: {why}; "
            "leave territory_bonus at its default ('once_per_turn') or choose a card_trade of sets"
        )
    if cfg.mission_target_taken != "holder_wins" and not cfg.secret_missions:
        raise ConfigError(
            f"mission_target_taken={cfg.mission_target_taken!r} has no effect without secret missions "
            "(docs/rules.md §8); set secret_missions=True or leave mission_target_taken at its default ('holder_wins')"
        )
    if cfg.two_player == "none" and cfg.num_players != 2:
        raise ConfigError(
            f"two_player='none' is for 2-player games (docs/rules.md §7), got num_players={cfg.num_players}; "
            "with 3 or more players there is no neutral to leave out: drop two_player"
        )


def rules_files() -> dict[str, Any]:
    """The shipped rules files (``configs/rules/*.yaml`` in the package ``risk_env.configs``):
    name -> resource."""
    folder = files("risk_env.configs") / "rules"
    if not folder.is_dir():  # pragma: no cover (the folder ships with the package)
        return {}
    return {x.name[: -len(".yaml")]: x for x in sorted(folder.iterdir(), key=lambda t: t.name) if x.name.endswith(".yaml")}


def load_rules_file(name_or_path: str | os.PathLike[str]) -> dict[str, Any]:
    """The mapping of switches a rules file holds (a shipped name or a path; see
    :meth:`RulesConfig.from_file`), not yet validated. A relative map path in a file given by its path
    (``map: mymap.json``, ``map: maps/mine.json``) is made relative to the file's folder; an absolute path and
    a shipped map's name (``small``) are kept as written.

    Raises:
        ConfigError: an unknown name or missing file, an empty file, unreadable YAML, or not a mapping.
    """
    shipped = rules_files()
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise ConfigError(f"a rules file is a shipped name or a path, got {type(name_or_path).__name__}")
    key = os.fspath(name_or_path)
    if key in shipped:
        text, where = shipped[key].read_text(encoding="utf-8"), f"rules file {key!r}"
    else:
        path = Path(key)
        if not path.is_file():
            choices = (
                f"presets: {', '.join(PRESETS)}; rules files: {', '.join(shipped) or 'none'}, or the path of a rules .yaml file"
            )
            if not key.strip():
                raise ConfigError(f"rules {key!r} names nothing; {choices}")
            if path.exists() and not path.is_dir():  # (a device, a pipe: no file to read the switches from)
                raise ConfigError(f"rules {key!r} is not a regular file; {choices}")
            if path.is_dir():
                raise ConfigError(f"rules {key!r} is a folder, not a rules file; {choices}")
            if key.lower() in PRESETS or key.lower() in shipped:  # (names are lower case, as the shipped files')
                what = "preset" if key.lower() in PRESETS else "file"
                raise ConfigError(f"unknown rules {what} {key!r}: names are lower case ({key.lower()!r}); {choices}")
            if os.sep in key or (os.altsep and os.altsep in key) or path.suffix.lower() in (".yaml", ".yml"):
                raise ConfigError(f"no rules file {key!r} (no such file); {choices}")
            raise ConfigError(f"unknown rules preset {key!r}; {choices}")
        where = f"rules file {key}"
        try:
            text = path.read_bytes().decode("utf-8")
        except OSError as e:
            raise ConfigError(f"cannot read {where}: {e.strerror or e}") from None
        except UnicodeDecodeError as e:
            raise ConfigError(f"{where} is not UTF-8 text (byte {e.start}); save it as UTF-8 YAML") from None
    try:
        import yaml
    except ImportError as e:  # pragma: no cover (pyyaml is a dependency)
        raise ConfigError(f"reading {where} needs pyyaml: pip install pyyaml") from e
    try:
        from .yaml_loader import UniqueKeyLoader

        data = yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass (a key given twice refused)
    except yaml.YAMLError as e:
        raise ConfigError(f"{where} is not valid YAML: {' '.join(str(e).split())}") from None
    except (ValueError, TypeError, OverflowError, KeyError, IndexError, AttributeError) as e:  # (a tag's own reader:
        # !!int 16.0, !!float abc, !!bool maybe, !!int "", !!timestamp foo)
        raise ConfigError(f"{where} is not valid YAML: a tagged value does not read ({e})") from None
    except RecursionError:
        raise ConfigError(f"{where} nests too deeply to be a rules file") from None
    if data is None:  # (an empty file was read as the classic rules)
        raise ConfigError(
            f"{where} is empty (or holds only comments): a rules file holds a mapping of rules switches (and "
            f"optionally 'preset'), {{}} for the classic rules; switches: {', '.join(RulesConfig.options())}"
        )
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{where} must hold a mapping of rules switches (and optionally 'preset'), got {type(data).__name__}; "
            f"switches: {', '.join(RulesConfig.options())}"
        )
    data = dict(data)
    m = data.get("map")
    if key not in shipped and isinstance(m, str) and names_a_file(m) and not os.path.isabs(m):
        data["map"] = os.path.join(os.path.dirname(key), m)  # (it was read against the working directory)
    return data


def _reject_unknown_options(init: Any) -> Any:
    """Make ``RulesConfig(bogus=1)`` raise ConfigError listing the options (not a bare TypeError)."""

    @functools.wraps(init)
    def __init__(self: RulesConfig, *args: Any, **kwargs: Any) -> None:
        unknown = sorted(set(kwargs) - set(RulesConfig.options()))
        if unknown:
            raise ConfigError(
                f"unknown rules option(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(RulesConfig.options())}"
            )
        init(self, *args, **kwargs)

    return __init__


RulesConfig.__init__ = _reject_unknown_options(RulesConfig.__init__)  # type: ignore[method-assign]


PRESETS: dict[str, dict[str, Any]] = {
    "classic": {},
    "fast": {"setup": "random", "turn_limit": 400},
    "tournament": {"setup": "deal", "fortify": "connected", "elimination_trade_at": 5, "territory_bonus": "once_per_turn"},
    "expert": {"card_trade": "slow_escalation", "fortify": "connected", "reroll_with_card": True, "die_to_six": True},
    "duel": {"num_players": 2, "two_player": "none", "setup": "claim"},
    "secret_missions": {"secret_missions": True},
    "capitals": {"capitals": True},
    "allied": {"num_players": 2, "two_player": "allied", "setup": "claim"},
}
"""Named rule sets: ``classic`` (the docs/rules.md defaults), ``fast`` (random
setup, 400-turn limit, for quick training), ``tournament`` (the tournament rule
set: territories dealt from the cards, connected fortify, the trade-down after an
elimination from 5 cards, the +2 bonus once per turn; §3, §4.2, §4.3; what it
leaves out is listed in docs/rules.md §8), ``expert`` (the rulebook's four expert rules:
slow escalation, connected fortify, the re-roll with a card and the die turned to a
six, §8), ``duel`` (two players without the neutral), ``secret_missions`` (a secret mission each, §8),
``capitals`` (a capital each, §8), ``allied`` (two players and the allied army of the
1975 rules, §7)."""


def preset_player_count(preset: str | None) -> int | None:
    """The player count a preset is made for (``duel`` and ``allied``: 2), or None when it takes any count
    (every other preset, a rules file, None).

    >>> preset_player_count("duel"), preset_player_count("fast")
    (2, None)
    """
    if preset is None or preset not in PRESETS:
        return None
    fixed = PRESETS[preset].get("num_players")
    return None if fixed is None else int(fixed)


def check_player_count(n: Any, where: str = "") -> int:
    """``n`` where it is a player count (an integer from 2 to 6, not a bool): the one check of a count, for the rules
    and the places that read a count before the rules are built (a rules file's, a rules mapping's).

    Raises:
        ConfigError: ``"<where>num_players must be an integer from 2 to 6, got <n>"``.

    >>> check_player_count(3)
    3
    """
    if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 6:
        raise ConfigError(f"{where}num_players must be an integer from 2 to 6, got {n!r}")
    return n


def rules_player_count(name: str | None) -> int | None:
    """The player count a preset or rules file fixes: a preset's own (:func:`preset_player_count`), a rules file's
    ``num_players``, else the count of the preset it starts from; None where it takes any count, or where the file
    does not read (:func:`resolve_rules` reports that).

    Raises:
        ConfigError: a rules file whose ``num_players`` is no integer from 2 to 6 (a count given beside it would
            replace it without a word).

    >>> rules_player_count("duel"), rules_player_count("fast"), rules_player_count("stars")
    (2, None, None)
    """
    if name is None or name in PRESETS:
        return preset_player_count(name)
    try:
        switches = load_rules_file(name)
    except ConfigError:
        return None
    fixed = switches.get("num_players")
    if fixed is not None:
        return check_player_count(fixed, f"rules file {name}: ")
    inner = switches.get("preset")
    return preset_player_count(inner) if isinstance(inner, str) else None


def check_preset_players(preset: str | None, num_players: int | None) -> None:
    """Refuse a player count that contradicts a preset made for a fixed count (``duel`` is for 2), or a rules file
    that names its own (:func:`rules_player_count`).

    Raises:
        ConfigError: ``num_players`` differs from the preset's or rules file's own ``num_players``; a rules file's
            ``num_players`` that is no count.

    >>> check_preset_players("duel", 2)  # agrees: nothing to say
    >>> try:
    ...     check_preset_players("duel", 4)
    ... except ConfigError as e:
    ...     print(str(e)[:47])
    preset 'duel' is meant for 2 players, got num_p
    """
    fixed = rules_player_count(preset)
    if fixed is not None and num_players is not None and fixed != num_players:
        what = "preset" if preset in PRESETS else "rules file"
        raise ConfigError(
            f"{what} {preset!r} is meant for {fixed} players, got num_players={num_players!r}; "
            f"omit num_players (or pass num_players={fixed}), or choose another {what}"
        )


def resolve_rules(
    preset: str | None = None,
    rules: RulesConfig | str | Mapping[str, Any] | None = None,
    num_players: int | None = None,
    **overrides: Any,
) -> RulesConfig:
    """The one way from a front end's arguments to a :class:`RulesConfig`.

    Layers, later ones winning: the base (``rules``, or the ``preset``, or the
    docs/rules.md defaults), then ``overrides``, then ``num_players``.

    Args:
        preset: a preset name (:data:`PRESETS`), or a rules file: a shipped name
            (:func:`rules_files`) or the path of a YAML file (:meth:`RulesConfig.from_file`).
        rules: a :class:`RulesConfig`, a preset or rules file name (a rules file's path may be a ``Path``), or a
            mapping of switches that may hold a ``"preset"`` key (as in the YAML training configs). Not together
            with ``preset``.
        num_players: 2..6; ``None`` keeps the count of the base (4 without one).
        **overrides: any switches of :class:`RulesConfig` (``turn_limit=200``, ``fortify="connected"``).

    Returns:
        the validated :class:`RulesConfig` (``rules`` itself when nothing changes it).

    Raises:
        ConfigError: ``preset`` and ``rules`` both given, an unknown preset or switch, a bad
            value, ``num_players`` against a preset made for another count
            (:func:`check_preset_players`), or ``rules`` of another type (the message lists what is allowed).

    >>> resolve_rules().num_players, resolve_rules(preset="duel").two_player
    (4, 'none')
    >>> resolve_rules(rules={"preset": "fast", "turn_limit": 90}, num_players=2).turn_limit
    90
    """
    if isinstance(preset, os.PathLike):  # (a rules file's path, as its text)
        preset = os.fspath(preset)
    if isinstance(rules, os.PathLike):
        rules = os.fspath(rules)
    if isinstance(rules, str):
        rules, preset = None, _one_preset(preset, rules)
    check_preset_players(preset, num_players)
    changes = dict(overrides)
    if num_players is not None:
        changes["num_players"] = num_players
    if preset is not None and preset not in PRESETS and rules is None:
        rules, preset = load_rules_file(preset), None
    if rules is None:
        if preset is None:
            return RulesConfig.from_dict(changes)
        return RulesConfig.from_preset(preset, **changes)
    if isinstance(rules, RulesConfig):
        if preset is not None:
            raise ConfigError("give either rules= or preset=, not both")
        return rules.replace(**changes) if changes else rules
    if isinstance(rules, Mapping):
        base = dict(rules)
        inner = base.pop("preset", None)
        if inner is not None:
            preset = _one_preset(preset, inner)
            check_preset_players(preset, num_players)
            if preset not in PRESETS:  # a rules file may start from another rules file
                base = {**load_rules_file(preset), **base}
                preset = base.pop("preset", None)
                if preset is not None and (preset not in PRESETS):
                    raise ConfigError(f"rules file chains deeper than one level are not supported ({inner!r} -> {preset!r})")
        merged = {**base, **changes}
        return RulesConfig.from_dict(merged) if preset is None else RulesConfig.from_preset(preset, **merged)
    raise ConfigError(
        f"rules must be a RulesConfig, a preset name ({', '.join(PRESETS)}), a rules file (a shipped name or a path), "
        f"a mapping of switches or None, got {type(rules).__name__}"
    )


def _one_preset(a: str | None, b: Any) -> str:
    if not isinstance(b, str):
        raise ConfigError(f"a rules preset is a name ({', '.join(PRESETS)}), got {b!r}")
    if a is not None and a != b:
        raise ConfigError(f"two rules presets given ({a!r} and {b!r}); give one")
    return b


_NUMBER = re.compile(r"[-+]?(\d[\d_]*(\.[\d_]*)?|\.\d[\d_]*)([eE][-+]?\d+)?")


def parse_value(text: str) -> Any:
    """A ``--set`` value: ``null``/``~`` -> None, ``true``/``false`` -> bool, an integer -> int,
    another number (``1e-4``, ``0.5``) -> float, ``[...]``/``{...}`` -> JSON (``[a, b]`` of bare words: a list
    of values), anything else -> the
    stripped text (so ``two_player=none`` stays the string ``"none"``).

    >>> [parse_value(t) for t in ("null", "true", "300", "2e6", "connected", "[1, 2]", "[random, 3]")]
    [None, True, 300, 2000000.0, 'connected', [1, 2], ['random', 3]]
    """
    t = text.strip()
    low = t.lower()
    if low in ("null", "~"):
        return None
    if low in ("true", "false"):
        return low == "true"
    if _NUMBER.fullmatch(t):
        for kind in (int, float):
            try:
                return kind(t)
            except ValueError:
                pass
    if t[:1] in ("[", "{"):
        try:
            return json.loads(t)
        except json.JSONDecodeError:
            if t.startswith("[") and t.endswith("]"):  # a list of bare words: [random, balanced]
                return [parse_value(x) for x in t[1:-1].split(",") if x.strip()]
    return t


def parse_settings(items: Iterable[str] | None, what: str = "a rules switch") -> dict[str, Any]:
    """``["turn_limit=200", "fortify=connected"]`` -> ``{"turn_limit": 200, "fortify": "connected"}``.

    The one parser of repeatable ``--set KEY=VALUE`` options (the command line, evaluation,
    RLlib training; SB3 training uses it for dotted keys such as ``ppo.learning_rate=1e-4``).
    Values are read by :func:`parse_value`; a later item overrides an earlier one. Keys are
    not checked here: :func:`resolve_rules` (or the training config) rejects unknown ones.

    Raises:
        ConfigError: an item without ``=`` or with an empty key.

    >>> parse_settings(["turn_limit=200", "two_player=none", "setup=null"])
    {'turn_limit': 200, 'two_player': 'none', 'setup': None}
    """
    out: dict[str, Any] = {}
    for item in items or ():
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            hint = f"; switches: {', '.join(RulesConfig.options())}" if what == "a rules switch" else ""
            raise ConfigError(f"--set takes KEY=VALUE ({what}), got {item!r}{hint}")
        out[key.strip()] = parse_value(value)
    return out
