"""Soak test: play very many seeded games and check the rules' invariants at every step.

Command line (``risk-env soak``; ``scripts/soak.py`` is the same command)::

    risk-env soak --games 100000 --out soak.json          # every core
    risk-env soak --games 1 --start 4711 --workers 1      # replay game 4711 alone

Each game ``i`` is fully determined by ``(--seed, i)``: the player count (2..6),
the rules preset (every one of :data:`risk_env.rules.config.PRESETS`), extra rule
switches, the map, the turn limit, the agents and every seed are drawn from
``numpy.random.default_rng([seed, i])``; a combination of switches the library refuses
(:class:`~risk_env.rules.config.RulesConfig` and :class:`~risk_env.rules.engine.Game` decide)
is drawn again from that generator (:func:`game_spec`). A failure is reported with that
index, its rules, agents and game seed, and the command that replays it alone.

Design for throughput: most games use the 9-territory ``small`` map with a
short turn limit (``--small-turn-limit``, default 30 player turns); a share
(``--classic-share``, default 0.1) uses the classic 42-territory map
(``--classic-turn-limit``, default 60). Seats are random agents, or with
probability ``--heuristic-share`` one of the scripted heuristics of
:mod:`risk_env.agents` (``aggressive``, ``continent``, ``balanced``). Games
run in a process pool (``--workers``, default every core) with a tqdm bar.

Checked at every action id (see :class:`~risk_env.tools.soak_checks.StepChecker`):

* after every complete move, ``Game.invariant_violations`` (docs/rules.md §5: owners, armies >= 1, the 44
  cards accounted for, eliminated players hold nothing and never act);
* a sub-step (a selection) changes nothing but the selection: armies,
  owners, armies to place, phase and player are compared before and after;
* the army ledger: in setup, armies
  on the board + armies still to place stay constant; a placement adds
  exactly its count; a trade adds its set value to the armies to place and
  +2 for a bonus; a roll removes exactly ``min(attacker dice, defender dice)``
  armies; a blitz removes at least one; occupation, fortification and the
  ends of phases move armies without creating or losing any;
* the env selects the seat the engine says must act, its mask is non-empty,
  and the chosen legal id is accepted (the env is the strict ``raw_env``, so
  an engine error surfaces as an exception instead of ending the game);
* for a share of games (``--observe-share``) the observation is inside
  ``observation_space(agent)`` and its mask equals the codec's;
* no turn takes more than ``--max-turn-steps`` action ids and no game more
  than ``turn_limit`` turns;
* at the end, the rewards collected by each agent are those documented in
  :mod:`risk_env.envs.aec`: +1 for the winner, -1 for each eliminated player (and
  for the survivors of a mission or capitals win), 0 for
  survivors of a truncated game (``"draw"``) or their rank reward (``"rank"``);
* the batched engine (:mod:`risk_env.vector`, when torch is installed): every game whose
  rules it supports is replayed on it with the same action ids and the same dice and
  cards, the games of one rule set in one batch, and compared with the reference engine
  at every id: masks, positions, eliminations, wins and truncations, and for
  ``--observe-share`` of the games the observations
  (:class:`~risk_env.tools.soak_vector.VectorLockstep`). ``--vector-share`` (default 0.2)
  of the games draw their rules from those the batched engine supports (the same draw, drawn
  again where its own check refuses it), so its variants get their share
  whatever the mix; ``--no-vector`` leaves it out; ``--family N`` lets N consecutive games
  share their rules so that they replay in one batch.

The JSON summary (stdout, and ``--out``) holds ``games``, ``steps`` (action
ids), ``moves`` (complete moves), ``failures`` (with ``failure_details``),
``truncated`` (games that hit the turn limit), ``won``, ``vector_games`` and
``vector_steps`` (played on both engines), wall time and throughput, and counts
by player count, preset, map, agents and engines. With ``--out`` the file is
rewritten with the summary so far (``"partial": true``) every
``--checkpoint-every`` seconds, so a long run that is stopped keeps its counts.
The exit status is 1 if any game failed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import signal
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .._extras import require
from .._output import make_output_folder
from ..agents import HEURISTICS as _HEURISTICS
from ..agents import RandomAgent, load_agent
from ..envs.aec import raw_env
from ..errors import ConfigError, MapError, check_seed
from ..rules.config import PRESETS, RulesConfig
from ..rules.engine import Game
from ..rules.state import Phase
from .match import play_match
from .soak_checks import SoakFailure, StepChecker, expected_rewards, live_state
from .soak_vector import VectorLockstep, vector_available, vector_supports

__all__ = [
    "StepChecker",
    "continue_digest",
    "expected_rewards",
    "game_spec",
    "run_soak",
    "soak_game",
    "trajectory_digest",
    "write_summary",
]

HEURISTICS: tuple[str, ...] = tuple(_HEURISTICS)
"""Heuristic agent names the soak can seat (:data:`risk_env.agents.HEURISTICS`)."""

_VARIANT_CHOICES: dict[str, tuple[Any, ...]] = {
    "setup": ("claim", "deal", "random"),
    "two_player": ("neutral", "none", "allied"),
    "card_trade": ("escalating", "escalating_reset", "fixed_by_symbol", "slow_escalation", "stars", "no_cards"),
    "territory_bonus": ("once_per_turn", "once_per_trade"),
    "elimination_trade_at": (5, 6, 7),
    "defender_dice": ("max", "choose"),
    "fortify": ("adjacent", "connected"),
    "reroll_with_card": (False, True),
    "die_to_six": (False, True),
    "truncation_reward": ("draw", "rank"),
    "secret_missions": (False, True),
    "mission_target_taken": ("24_territories", "holder_wins"),
    "capitals": (False, True),
}
"""The random switches and the values drawn for them. Which combinations are played is not
decided here: a drawn set the library refuses is drawn again (see :func:`game_spec`)."""

_VECTOR_EXTRA: dict[str, tuple[Any, ...]] = {"starting_armies": (8, 10, 15)}
"""Switches drawn for the batched engine's games on the small map besides :data:`_VARIANT_CHOICES`
(fewer armies: more conquests and eliminations in a short game)."""

_MAPS: tuple[str, ...] = ("small", "classic")
"""The maps the soak plays: ``"classic"`` for ``classic_share`` of the games, else ``"small"``."""

_DRAWS = 64
"""Most draws of one game's random switches (then it plays its preset's switches alone), and of
its preset (then the soak has no rules for it, see :func:`_draw_rules`)."""


# ---------------------------------------------------------------------------- game specs


def game_spec(
    index: int,
    seed: int = 0,
    classic_share: float = 0.1,
    heuristic_share: float = 0.3,
    small_turn_limit: int = 30,
    classic_turn_limit: int = 60,
    variant_share: float = 0.5,
    vector_share: float = 0.0,
    vector: bool = False,
    family: int = 1,
) -> dict[str, Any]:
    """The settings of soak game ``index`` (a JSON-compatible dict), drawn from ``default_rng([seed, index])``.

    The rules: a preset (every one of :data:`~risk_env.rules.config.PRESETS`), a player
    count (the preset's, else 2..6), a map (``"classic"`` with probability ``classic_share``,
    else ``"small"``; the other one where the library refuses the preset on the drawn map)
    and a turn limit (``small_turn_limit`` or ``classic_turn_limit``, or the preset's when
    lower). Every preset's switches are kept; with probability ``variant_share`` each other
    switch of :data:`_VARIANT_CHOICES` is drawn at random with probability 1/3. The library
    decides which combinations are played: a drawn set that :class:`~risk_env.rules.config.RulesConfig`
    or :class:`~risk_env.rules.engine.Game` (the map checks of the variants) refuses with
    :class:`~risk_env.errors.ConfigError` or :class:`~risk_env.errors.MapError` is drawn
    again from the same generator (at most :data:`_DRAWS` times, then the preset's switches
    alone), so each ``index`` still stands for one rules set.

    Args:
        vector_share: the chance that the game's rules are drawn from those the batched
            engine supports (the same draw, refused also where the batched engine's own check
            refuses it, :func:`~risk_env.tools.soak_vector.vector_supports`, and on the small
            map with the fewer starting armies of :data:`_VECTOR_EXTRA` among the switches),
            from ``default_rng([seed, index, 1])``.
        vector: mark the game for the batched engine too when it supports the rules.
        family: games ``family * k .. family * k + family - 1`` share the rules drawn for
            family ``k`` (``index`` in the draws above becomes ``index // family``); their agents
            and seeds are drawn per game from ``default_rng([seed, index, 3])``. Games with the
            same rules replay on the batched engine in one batch, so a family of 16 or so makes
            the soak several times faster there. 1 (the default): every game draws its own rules.

    Returns:
        ``{"index", "seed" (game seed), "agent_seed", "preset", "rules" (RulesConfig.to_dict()), "agents" (names per seat),
        "vector" (played on the batched engine beside the reference one)}``.

    Raises:
        ValueError: ``family`` is not an integer >= 1; ConfigError (a ValueError): ``seed`` is not an integer >= 0.
        RuntimeError: no preset could be drawn that the library plays (a bug of the library or
            of :data:`~risk_env.rules.config.PRESETS`).
    """
    check_seed(seed)
    if isinstance(family, bool) or not isinstance(family, int) or family < 1:
        raise ValueError(f"family must be an integer >= 1, got {family!r}")
    key = index // family
    draw = (classic_share, small_turn_limit, classic_turn_limit, variant_share)
    got = None
    if vector_share > 0:
        rng = np.random.default_rng([seed, key, 1])
        if rng.random() < vector_share:
            got = _draw_rules(rng, _vector_playable, *draw, extra=_VECTOR_EXTRA)
    if got is None:
        rng = np.random.default_rng([seed, key])
        got = _draw_rules(rng, _playable, *draw)
        if got is None:
            raise RuntimeError(f"soak game {index}: the library refused every one of {_DRAWS} presets drawn for it")
    preset, rules = got
    if family > 1:
        rng = np.random.default_rng([seed, index, 3])
    cfg = RulesConfig.from_dict(rules)
    agents = []
    for _ in range(cfg.num_players):
        if rng.random() < heuristic_share:
            agents.append(HEURISTICS[int(rng.integers(len(HEURISTICS)))])
        else:
            agents.append("random")
    return {
        "index": int(index),
        "seed": int(rng.integers(2**31)),
        "agent_seed": int(rng.integers(2**31)),
        "preset": preset,
        "rules": cfg.to_dict(),
        "agents": agents,
        "vector": bool(vector and vector_supports(cfg)),
    }


def _playable(rules: dict[str, Any]) -> bool:
    """Whether the library plays ``rules`` (a dict of switches): the owners decide,
    :class:`~risk_env.rules.config.RulesConfig` (each switch and their combinations) and
    :class:`~risk_env.rules.engine.Game` (the map, and each variant's own ``check``)."""
    return _playable_json(json.dumps(rules, sort_keys=True))


@functools.lru_cache(maxsize=4096)
def _playable_json(rules: str) -> bool:
    try:
        Game(RulesConfig.from_dict(json.loads(rules)))
    except (ConfigError, MapError):
        return False
    return True


def _vector_playable(rules: dict[str, Any]) -> bool:
    """Whether the library and the batched engine play ``rules`` (:func:`~risk_env.tools.soak_vector.vector_supports`)."""
    return _vector_playable_json(json.dumps(rules, sort_keys=True))


@functools.lru_cache(maxsize=4096)
def _vector_playable_json(rules: str) -> bool:
    return vector_supports(json.loads(rules))


def _draw_rules(
    rng: np.random.Generator,
    playable: Callable[[dict[str, Any]], bool],
    classic_share: float,
    small_turn_limit: int,
    classic_turn_limit: int,
    variant_share: float,
    extra: dict[str, tuple[Any, ...]] | None = None,
) -> tuple[str, dict[str, Any]] | None:
    """A preset and rules drawn from ``rng`` as :func:`game_spec` says, that ``playable`` accepts;
    None when it refuses every preset drawn (:data:`_DRAWS` of them) on every map.

    Args:
        extra: more random switches (and their values) for the small map.
    """
    presets = list(PRESETS)
    for _ in range(_DRAWS):
        preset = presets[int(rng.integers(len(presets)))]
        base = PRESETS[preset]
        n = int(base.get("num_players", rng.integers(2, 7)))
        first = "classic" if rng.random() < classic_share else "small"
        for name in (first, *(m for m in _MAPS if m != first)):
            limit = classic_turn_limit if name == "classic" else small_turn_limit
            rules: dict[str, Any] = {
                **base,
                "num_players": n,
                "map": name,
                "turn_limit": min(int(base.get("turn_limit", 10**9)), limit),
            }
            if playable(rules):
                break
        else:
            continue  # the preset is not played with n players on any map: draw another
        if rng.random() < variant_share:
            pool = {**_VARIANT_CHOICES, **(extra or {})} if name == "small" else _VARIANT_CHOICES
            choices = {k: v for k, v in pool.items() if k not in base}
            for _ in range(_DRAWS):
                switches = {k: v[int(rng.integers(len(v)))] for k, v in choices.items() if rng.random() < 1 / 3}
                if playable({**rules, **switches}):
                    rules.update(switches)
                    break
        return preset, rules
    return None


# ---------------------------------------------------------------------------- one game

_ENVS: dict[str, raw_env] = {}
_AGENTS: dict[str, Any] = {}


def _env_for(rules: dict[str, Any]) -> raw_env:
    key = json.dumps(rules, sort_keys=True)
    env = _ENVS.get(key)
    if env is None:
        if len(_ENVS) > 256:
            _ENVS.clear()
        env = _ENVS[key] = raw_env(rules=RulesConfig.from_dict(rules))
    return env


def _agent(name: str, seat: int) -> Any:
    """One agent object per (name, seat), reused across games (re-seeded by ``reset`` each game)."""
    key = f"{name}#{seat}"
    if key not in _AGENTS:
        _AGENTS[key] = RandomAgent() if name == "random" else load_agent(name)
    return _AGENTS[key]


def soak_game(spec: dict[str, Any], observe: bool = False, max_turn_steps: int = 5000) -> dict[str, Any]:
    """Play the game ``spec`` describes (see :func:`game_spec`) through
    :func:`~risk_env.tools.match.play_match`, with every check on.

    Args:
        observe: also encode each observation and check it against ``observation_space``.
        max_turn_steps: most action ids one player turn may take.

    Returns:
        ``{"index", "steps", "moves", "turns", "truncated", "winner", "failure"}``:
        ``failure`` is None, or a dict with the error, the step and the spec. A game marked
        ``"vector"`` also returns its action ids (``"actions"``) and final position
        (``"final"``, ``GameState.to_dict()``) for the batched engine's replay (:func:`_run_chunk`).
    """
    env = _env_for(spec["rules"])
    agents = [_agent(name, seat) for seat, name in enumerate(spec["agents"])]
    seeds = [int(x) for x in np.random.SeedSequence([spec["agent_seed"]]).generate_state(len(agents))]
    chk = StepChecker(env)
    done = [0]
    ids: list[int] = []

    def before(agent: str, action: int, obs: Any, info: dict[str, Any]) -> None:
        s = live_state(env)
        seat = env.game.current_player(s)
        if seat < 0 or env.possible_agents[seat] != agent:
            raise SoakFailure(f"the env selected {agent} but the engine says seat {seat} acts")
        mask = info["action_mask"]
        if not mask.any():
            raise SoakFailure(f"{agent} must act but its mask is empty")
        if observe:
            if not env.observation_space(agent).contains(obs):
                raise SoakFailure("an observation is outside observation_space(agent)")
            if not np.array_equal(obs["action_mask"], mask):
                raise SoakFailure("the observation's mask differs from the info mask")
        if not mask[action]:
            raise SoakFailure(f"agent {spec['agents'][seat]} chose id {action}, which its mask forbids")
        chk.before(action)

    def after(agent: str, action: int) -> None:
        chk.after()
        ids.append(int(action))
        done[0] += 1

    try:
        result = play_match(
            env,
            agents,
            seed=spec["seed"],
            agent_seeds=seeds,
            before_step=before,
            on_step=after,
            observe=observe,
            views=None,
            max_turn_steps=max_turn_steps,
        )
        if result.stalled_by >= 0:
            s = live_state(env)
            raise SoakFailure(f"turn {s.turn} of seat {s.player} took more than {max_turn_steps} action ids")
        returns = result.returns
        steps = result.steps
        s = live_state(env)
        if s.phase != Phase.GAME_OVER:
            raise SoakFailure("every agent left but the game is not over")
        if s.truncated != (s.turn >= env.rules.turn_limit and s.winner < 0):
            raise SoakFailure(f"truncated={s.truncated} at turn {s.turn} of {env.rules.turn_limit}")
        want = expected_rewards(env)
        if any(abs(returns[a] - want[a]) > 1e-9 for a in want):
            raise SoakFailure(f"rewards {returns} differ from the documented {want}")
        out = {
            "index": spec["index"],
            "steps": steps,
            "moves": int(s.steps),
            "turns": int(s.turn),
            "truncated": bool(s.truncated),
            "winner": int(s.winner),
            "failure": None,
            **_tally_keys(spec),
        }
        if spec.get("vector"):
            out["actions"] = ids
            out["final"] = s.to_dict()
        return out
    except Exception as e:  # noqa: BLE001 - every error is a soak failure, reported with its game
        s = live_state(env)
        tb = traceback.format_exception(type(e), e, e.__traceback__)
        return {
            "index": spec["index"],
            "steps": done[0],
            "moves": int(s.steps) if s is not None else 0,
            "turns": int(s.turn) if s is not None else 0,
            "truncated": False,
            "winner": -1,
            **_tally_keys(spec),
            "failure": {
                "error": f"{type(e).__name__}: {e}",
                "where": "".join(tb[-3:]).strip(),
                "step": done[0],
                "spec": spec,
            },
        }


def _tally_keys(spec: dict[str, Any]) -> dict[str, str]:
    return {
        "players": str(spec["rules"]["num_players"]),
        "preset": spec["preset"],
        "map": spec["rules"]["map"],
        "agents": "with heuristics" if any(a != "random" for a in spec["agents"]) else "random only",
        "engines": "reference and batched" if spec.get("vector") else "reference",
    }


# ---------------------------------------------------------------------------- determinism helpers


def _digest_loop(env: Any, rng: np.random.Generator, h: Any, max_steps: int) -> int:
    n = 0
    for agent in env.agent_iter(max_steps):
        obs, reward, term, trunc, _ = env.last()
        h.update(f"{agent}|{float(reward)!r}|{bool(term)}|{bool(trunc)}|".encode())
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
        if term or trunc:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        h.update(repr(action).encode())
        env.step(action)
        n += 1
    h.update(json.dumps(env.unwrapped.game_state.to_dict(), sort_keys=True).encode())
    return n


def trajectory_digest(rules: dict[str, Any], seed: int, agent_seed: int, max_steps: int = 10**7, wrapped: bool = True) -> str:
    """SHA-256 of a whole game (agents, rewards, flags, observations, masks, actions, final state)
    played by random agents drawing from ``default_rng(agent_seed)``: equal digests mean equal games.

    Used to compare trajectories across processes (spawn, other ``PYTHONHASHSEED``).

    Raises:
        ConfigError: ``seed`` or ``agent_seed`` is not an integer >= 0.
    """
    from ..envs.aec import env as make_env

    check_seed(seed)
    check_seed(agent_seed)

    e = make_env(rules=RulesConfig.from_dict(rules)) if wrapped else raw_env(rules=RulesConfig.from_dict(rules))
    e.reset(seed=seed)
    h = hashlib.sha256()
    _digest_loop(e, np.random.default_rng(agent_seed), h, max_steps)
    return h.hexdigest()


def continue_digest(env_bytes: bytes, agent_seed: int, max_steps: int = 10**7) -> str:
    """SHA-256 of the rest of a game from a pickled env (see :func:`trajectory_digest`)."""
    import pickle

    e = pickle.loads(env_bytes)
    h = hashlib.sha256()
    _digest_loop(e, np.random.default_rng(agent_seed), h, max_steps)
    return h.hexdigest()


# ---------------------------------------------------------------------------- the pool


def _run_chunk(args: tuple[list[dict[str, Any]], list[bool], int]) -> list[dict[str, Any]]:
    """Play a chunk of games; then replay those the batched engine supports on it, the games of
    one rule set in one batch (:class:`~risk_env.tools.soak_vector.VectorLockstep`)."""
    specs, observe_flags, max_turn_steps = args
    results = [soak_game(sp, observe=ob, max_turn_steps=max_turn_steps) for sp, ob in zip(specs, observe_flags, strict=False)]
    groups: dict[str, list[int]] = {}
    for i, (sp, r) in enumerate(zip(specs, results, strict=True)):
        if sp.get("vector") and r["failure"] is None:
            groups.setdefault(json.dumps(sp["rules"], sort_keys=True), []).append(i)
    if groups:
        import torch

        torch.set_num_threads(1)  # small batches on the CPU: more threads only spin
    for members in groups.values():
        rules = RulesConfig.from_dict(specs[members[0]]["rules"])
        observe = any(observe_flags[i] for i in members)
        try:
            lock = VectorLockstep(rules, observe=observe)
            problems = lock.run([(specs[i]["seed"], results[i]["actions"]) for i in members])
            for i, state, problem in zip(members, lock.states, problems, strict=True):
                if problem is None and state.to_dict() != results[i]["final"]:
                    problem = "the replayed reference game ended in another position than the env's"
                if problem is not None:
                    results[i]["failure"] = _failure(specs[i], f"batched engine: {problem}", "", results[i]["steps"])
        except Exception as e:  # noqa: BLE001 - an error of the batched engine fails every game of the batch
            tb = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-3:]).strip()
            for i in members:
                results[i]["failure"] = _failure(specs[i], f"batched engine: {type(e).__name__}: {e}", tb, results[i]["steps"])
    for r in results:
        r.pop("actions", None)
        r.pop("final", None)
    return results


def _failure(spec: dict[str, Any], error: str, where: str, step: int) -> dict[str, Any]:
    return {"error": error, "where": where, "step": step, "spec": spec}


def _chunks(
    indices: Sequence[int], settings: dict[str, Any], size: int, vector_batch: int = 32, block: int = 8192
) -> Iterable[tuple[list[dict[str, Any]], list[bool], int]]:
    """Worker tasks: ``size`` games each, except that the games the batched engine plays are
    gathered by rule set (up to ``vector_batch`` a task) so that they replay in one batch; the
    tasks of each ``block`` of indices come in the order of their first game."""
    share = settings["observe_share"]
    for i in range(0, len(indices), block):
        plain: list[dict[str, Any]] = []
        groups: dict[str, list[dict[str, Any]]] = {}
        for k in indices[i : i + block]:
            sp = game_spec(
                k,
                settings["seed"],
                settings["classic_share"],
                settings["heuristic_share"],
                settings["small_turn_limit"],
                settings["classic_turn_limit"],
                settings["variant_share"],
                settings["vector_share"],
                settings["vector"],
                settings["family"],
            )
            if sp["vector"]:
                groups.setdefault(json.dumps(sp["rules"], sort_keys=True), []).append(sp)
            else:
                plain.append(sp)
        tasks = [plain[j : j + size] for j in range(0, len(plain), size)]
        for members in groups.values():
            tasks += [members[j : j + vector_batch] for j in range(0, len(members), vector_batch)]
        for specs in sorted(tasks, key=lambda t: t[0]["index"]):
            observe = [((sp["index"] * 2654435761) % 1000) < share * 1000 for sp in specs]
            yield specs, observe, settings["max_turn_steps"]


def run_soak(
    games: int,
    start: int = 0,
    seed: int = 0,
    workers: int | None = None,
    classic_share: float = 0.1,
    heuristic_share: float = 0.3,
    small_turn_limit: int = 30,
    classic_turn_limit: int = 60,
    variant_share: float = 0.5,
    observe_share: float = 0.1,
    max_turn_steps: int = 5000,
    progress: bool = True,
    chunk: int = 8,
    max_details: int = 50,
    max_seconds: float | None = None,
    vector_share: float = 0.2,
    vector: bool | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: float = 60.0,
    vector_batch: int = 32,
    family: int = 1,
) -> dict[str, Any]:
    """Play games ``start .. start + games - 1`` (see :func:`game_spec`) and summarize them.

    Args:
        workers: processes (default: the CPU cores available); 1 plays in this process.
        max_seconds: stop after this much wall time (the summary counts the games finished;
            ``stopped_early`` says so).
        vector_share: share of games whose rules are drawn from those the batched engine supports.
        vector: play every game whose rules the batched engine supports on it too, beside the
            reference engine (:class:`~risk_env.tools.soak_vector.VectorShadow`); None: when torch
            is installed. Without it ``vector_share`` is 0.
        checkpoint: write the summary so far (``"partial": true``) to this file every
            ``checkpoint_every`` seconds, and the final one at the end.
        vector_batch: most games of one rule set replayed together on the batched engine.
        family: consecutive games sharing their rules (see :func:`game_spec`).

    Returns:
        the JSON-compatible summary described in the module docstring.

    Raises:
        ValueError: a count or share out of range.
        MissingExtraError: ``vector=True`` without torch.
    """
    if games < 0 or start < 0:
        raise ValueError(f"games and start must be >= 0, got games={games}, start={start}")
    if isinstance(family, bool) or not isinstance(family, int) or family < 1:
        raise ValueError(f"family must be an integer >= 1, got {family!r}")
    for name, v in (
        ("classic_share", classic_share),
        ("heuristic_share", heuristic_share),
        ("variant_share", variant_share),
        ("observe_share", observe_share),
        ("vector_share", vector_share),
    ):
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {v}")
    if vector is None:
        vector = vector_available()
    elif vector:
        require("torch", "train", "the batched engine in the soak (pass --no-vector to leave it out)")
    if not vector:
        vector_share = 0.0
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    workers = max(1, min(int(workers), games))  # (no more processes than games, as evaluate)
    settings = {
        "seed": seed,
        "classic_share": classic_share,
        "heuristic_share": heuristic_share,
        "small_turn_limit": small_turn_limit,
        "classic_turn_limit": classic_turn_limit,
        "variant_share": variant_share,
        "observe_share": observe_share,
        "max_turn_steps": max_turn_steps,
        "vector_share": vector_share,
        "vector": vector,
        "family": family,
    }
    indices = range(start, start + games)  # (a range: sliced block by block, never built whole)
    tasks = _chunks(indices, settings, max(1, chunk), vector_batch=max(1, vector_batch))
    stats: Counter = Counter()
    stopped = False
    by: dict[str, Counter] = {k: Counter() for k in ("players", "preset", "map", "agents", "engines")}
    vector_steps = [0]
    failures: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    last_checkpoint = [t0]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game", smoothing=0.05, dynamic_ncols=True)

    def summary(partial: bool) -> dict[str, Any]:
        wall = time.perf_counter() - t0
        out = {
            "games": stats["games"],
            "steps": stats["steps"],
            "moves": stats["moves"],
            "turns": stats["turns"],
            "failures": stats["failures"],
            "truncated": stats["truncated"],
            "won": stats["won"],
            "vector_games": by["engines"]["reference and batched"],
            "vector_steps": vector_steps[0],
            "stopped_early": stopped,
            "wall_s": round(wall, 2),
            "games_per_s": round(stats["games"] / wall, 2) if wall > 0 else None,
            "steps_per_s": round(stats["steps"] / wall, 1) if wall > 0 else None,
            "workers": workers,
            "settings": {**settings, "start": start, "heuristics": list(HEURISTICS)},
            "by_players": dict(sorted(by["players"].items())),
            "by_preset": dict(by["preset"]),
            "by_map": dict(by["map"]),
            "by_agents": dict(by["agents"]),
            "by_engines": dict(by["engines"]),
            "failure_details": failures,
        }
        if partial:
            out["partial"] = True
        return out

    def consume(results: list[dict[str, Any]]) -> bool:
        for r in results:
            for k, counts in by.items():
                counts[r[k]] += 1
            stats["games"] += 1
            stats["steps"] += r["steps"]
            stats["moves"] += r["moves"]
            stats["turns"] += r["turns"]
            if r["engines"] != "reference":
                vector_steps[0] += r["steps"]
            if r["failure"] is not None:
                stats["failures"] += 1
                if len(failures) < max_details:
                    failures.append(_with_repro(r["failure"], settings))
            elif r["truncated"]:
                stats["truncated"] += 1
            else:
                stats["won"] += 1
        if bar is not None:
            bar.update(len(results))
            bar.set_postfix(failures=stats["failures"], steps=stats["steps"], refresh=False)
        now = time.perf_counter()
        if checkpoint is not None and now - last_checkpoint[0] >= checkpoint_every:
            write_summary(checkpoint, summary(partial=True))
            last_checkpoint[0] = now
        return max_seconds is not None and now - t0 > max_seconds

    try:
        if workers == 1:
            for task in tasks:
                if consume(_run_chunk(task)):
                    stopped = True
                    break
        else:
            import multiprocessing as mp

            with mp.get_context("spawn").Pool(workers, initializer=_worker_ignores_interrupt) as pool:
                for results in pool.imap_unordered(_run_chunk, tasks):
                    if consume(results):
                        stopped = True
                        pool.terminate()
                        break
    finally:
        if bar is not None:
            bar.close()
    out = summary(partial=False)
    if checkpoint is not None:
        write_summary(checkpoint, out)
    return out


def _worker_ignores_interrupt() -> None:
    """A soak worker leaves Ctrl+C to the main process, which stops the pool (each worker printed a
    ``KeyboardInterrupt`` traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _with_repro(failure: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """The failure with the command that plays its game alone (``repro``)."""
    st = settings
    failure["repro"] = (
        f"risk-env soak --games 1 --start {failure['spec']['index']} --seed {st['seed']} --workers 1 "
        f"--classic-share {st['classic_share']} --heuristic-share {st['heuristic_share']} "
        f"--variant-share {st['variant_share']} --small-turn-limit {st['small_turn_limit']} "
        f"--classic-turn-limit {st['classic_turn_limit']} --vector-share {st['vector_share']} "
        f"--observe-share {st['observe_share']} --max-turn-steps {st['max_turn_steps']}"
        + (f" --family {st['family']}" if st["family"] != 1 else "")
        + ("" if st["vector"] else " --no-vector")
    )
    return failure


def write_summary(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Write the summary ``data`` (indented JSON) to ``path`` through a temporary file, so a reader never sees half a
    file; its folder is made if missing (:func:`risk_env._output.make_output_folder`: the command checked it without
    making it). The one writer of the soak's ``--out``, for its checkpoints and its last summary.

    Raises:
        ConfigError: the folder cannot be made; OSError: the file cannot be written (the disk full).
    """
    make_output_folder(path, "--out")
    tmp = f"{os.fspath(path)}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)
