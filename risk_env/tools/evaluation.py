"""Evaluate agents against each other: many seeded games, statistics you can trust.

Python (from a script, with or without an ``if __name__ == "__main__":`` guard, from code fed on
standard input, from a notebook)::

    import risk_env
    result = risk_env.evaluate(["balanced", "random"], num_games=100, rules="fast", seed=0)
    print(result)                               # a table: win rates with 95 % Wilson intervals, places, ratings
    result.stats["balanced"].win_rate, result.stats["balanced"].ci
    result.save("results/balanced_vs_random")   # CSV + JSON + plot

Command line (``risk-env evaluate``; ``scripts/evaluate.py`` is the same command)::

    risk-env evaluate balanced random --games 100 --rules fast --out results/x
    risk-env evaluate random aggressive continent balanced --round-robin --games 100 --rules fast

Agents are *specs* (see :func:`risk_env.agents.load_agent`): a baseline name
(``random``, ``aggressive``, ``continent``, ``balanced``), a saved sb3-contrib
MaskablePPO model (``path/model.zip``), or ``module:callable``. Agent objects
work too: with ``workers=1`` any, and in worker processes those that pickle (the
baselines and the pretrained agents do).

Design
    * One *entrant* per seat: ``num_players`` defaults to the number of specs
      and must equal it. Entrants are labelled by spec (``random``, ``model``);
      a repeated label gets ``#2``, ``#3``.
    * Seats rotate: games come in blocks of ``num_players``; within a block
      every game uses the same game seed (same deal, same turn order draw) and
      game ``r`` of the block shifts the entrants ``r`` seats, so each entrant
      plays each seat (and so each turn-order position) once per block. Use a
      multiple of ``num_players`` games for a balanced schedule.
    * Seeds: the game seed of block ``b`` is drawn from
      ``numpy.random.SeedSequence([seed, b])``; each agent is re-seeded before
      each game with a seed from ``SeedSequence([seed, game, seat, 1])``. Both
      are recorded per game; the same ``seed`` reproduces every game, whatever
      ``workers`` is.
    * Games that reach the turn limit are truncated: they are **draws**, a
      win for nobody. A win rate is wins / games; the draw rate is reported
      beside it. For ranks (elimination order, ratings) the survivors of a
      truncated game tie for first place.
    * A guard: a player turn may take at most ``max_turn_steps`` action ids
      (default 5000). The turn limit bounds turns, not a turn's sub-steps;
      the action codec has no cancel, so every turn of the shipped env ends
      after finitely many decisions and the guard never fires there, but it
      bounds an evaluation against a misbehaving custom env or codec. A game
      that hits the cap is stopped and recorded with ``stalled_by``: a loss
      for that entrant (ranked below the other survivors), a draw for the others.
    * Win-rate intervals are 95 % Wilson score intervals (no statistics
      library is required): with ``p = wins / n`` and ``z`` the standard
      normal 97.5 % quantile (1.95996...),
      ``(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``.
      Games are treated as independent trials; games of one rotation block
      share a seed, which, if anything, makes the interval conservative.
    * Places: the winner is 1st; eliminated players rank by elimination (the
      first out is last). Players still alive when a secret mission or the
      capitals (docs/rules.md §8) end the game lose, tied 2nd. Ratings come from ``openskill``'s Plackett-Luce
      model, updated game by game in game order (``mu``, ``sigma`` and the
      conservative ``ordinal = mu - 3 sigma``).
    * Work is spread over a process pool (``spawn`` start method, safe with
      torch) of ``workers`` processes (default: every CPU core available);
      ``workers=1`` plays in this process (the vector backend's only way: it
      refuses another ``workers``). A tqdm bar shows progress. The workers do not
      import the main program again unless an agent object defined there needs it
      (:mod:`risk_env.tools.workers`), so a script without a main guard works, and so does
      code fed on standard input.

Outputs of :meth:`EvaluationResult.save` (and ``--out``): ``summary.csv``
(one row per entrant), ``games.csv`` (one row per game), ``results.json``
(settings, summary, every game) and ``winrate.png`` (win-rate bars with the
95 % intervals).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Iterable, Iterator, KeysView, Mapping, Sequence
from collections.abc import Set as AbstractSet
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from itertools import combinations, islice
from pathlib import Path
from typing import Any

import numpy as np

from .._extras import require
from .._output import check_output_file, folder_problem
from ..errors import ConfigError, check_flag, check_seed
from ..rules.config import RulesConfig, check_player_count, resolve_rules, rules_player_count
from ..rules.engine import Game
from .match import DEFAULT_MAX_TURN_STEPS, play_match
from .progress import progress_bar
from .stats import EntrantStats, EvaluatedGame, EvaluationResult, round_robin_table, summarize, wilson_interval
from .workers import worker_context

__all__ = [
    "evaluate",
    "round_robin",
    "round_robin_table",
    "wilson_interval",
    "EvaluationResult",
    "EntrantStats",
    "EvaluatedGame",
    "default_workers",
]


# ---------------------------------------------------------------------- playing
def _labels(specs: Sequence[Any]) -> list[str]:
    from risk_env.agents import agent_label

    out: list[str] = []
    for sp in specs:
        base = agent_label(sp)
        name, k = base, 1
        while name in out:
            k += 1
            name = f"{base}#{k}"
        out.append(name)
    return out


def _whole(x: Any, name: str) -> Any:
    """A count given as a numpy integer as a Python int; a bool refused (``True`` is no count); other values as
    given (the caller's range check names what is allowed)."""
    if isinstance(x, (bool, np.bool_)):
        raise ConfigError(f"{name} must be an integer, got {x!r}")
    return int(x) if isinstance(x, np.integer) else x


def _check_run_args(backend: Any, workers: Any, progress: Any) -> None:
    """Refuse a ``progress`` that is no bool, and ``workers`` (other than 1) given to the vector backend, which plays
    its games in one process (``workers`` already as :func:`_whole` gives it)."""
    check_flag(progress, "progress")
    if backend == "vector" and workers is not None and workers != 1:
        raise ConfigError(
            f"workers={workers!r}: the vector backend plays its games in one process (batch_size sets how many at "
            "once); leave workers out, or set backend='reference' to play in worker processes"
        )


def _spec_text(spec: Any) -> str:
    return spec if isinstance(spec, str) else str(spec) if isinstance(spec, os.PathLike) else repr(spec)


_WORKER: dict[str, Any] = {}


def _worker_init() -> None:
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    if "torch" in sys.modules:  # pragma: no cover - only with torch pre-imported
        sys.modules["torch"].set_num_threads(1)


@contextlib.contextmanager
def _one_torch_thread() -> Iterator[None]:
    """One torch thread while games are played in this process (restored after): a policy decides one
    observation at a time, where more threads only spin, and on a busy machine that spinning made an
    evaluation of a trained policy tens of times slower. A no-op unless torch is imported."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _setup(specs: Sequence[Any], rules: dict[str, Any]) -> tuple[Any, list[Any]]:
    from risk_env.agents import load_agent

    from ..envs.aec import raw_env

    key = repr((list(map(_spec_text, specs)), sorted(rules.items())))
    if _WORKER.get("key") != key:
        env = raw_env(rules=RulesConfig.from_dict(rules), num_players=rules["num_players"])
        agents = [load_agent(sp) for sp in specs]
        _WORKER.clear()
        _WORKER.update(key=key, env=env, agents=agents)
    return _WORKER["env"], _WORKER["agents"]


def _play_jobs(
    specs: Sequence[Any],
    labels: Sequence[str],
    rules: dict[str, Any],
    jobs: Sequence[tuple[int, int, list[int], list[int]]],
    max_turn_steps: int = DEFAULT_MAX_TURN_STEPS,
) -> list[EvaluatedGame]:
    """Play ``jobs`` (index, game seed, entrant per seat, agent seed per seat); module level for pickling."""
    env, agents = _setup(specs, rules)
    n = rules["num_players"]
    out = []
    for index, gseed, seating, aseeds in jobs:
        names = [f"player_{i}" for i in range(n)]
        seat_agents = {names[i]: agents[seating[i]] for i in range(n)}
        t0 = time.perf_counter()
        seeds = {names[i]: aseeds[i] for i in range(n)}
        r = play_match(env, seat_agents, seed=gseed, agent_seeds=seeds, max_turn_steps=max_turn_steps, observe=True)
        dt = time.perf_counter() - t0
        seats = [labels[e] for e in seating]
        elim = [seats[p] for p in r.elimination_order]
        places: dict[str, int] = {}
        for k, p in enumerate(r.elimination_order):
            places[seats[p]] = n - k
        survivors = n - len(places)
        staller = seats[r.stalled_by] if r.stalled_by >= 0 else None
        if staller is not None:
            places[staller] = survivors  # below the other survivors, above the eliminated
        for i in range(n):
            # a secret mission or the capitals (docs/rules.md §8) may end a game with survivors:
            # they lose, tied just below the winner
            places.setdefault(seats[i], 2 if 0 <= r.winner != i else 1)
        out.append(
            EvaluatedGame(
                index=index,
                seed=gseed,
                seats=seats,
                agent_seeds=list(aseeds),
                winner=seats[r.winner] if r.winner >= 0 else None,
                truncated=r.truncated,
                stalled_by=staller,
                turns=r.turns,
                steps=r.steps,
                elimination_order=elim,
                places=places,
                territories={seats[i]: r.territories[i] for i in range(n)},
                seconds=dt,
            )
        )
    return out


def _schedule(num_games: int, n: int, seed: int, chunk: int) -> Iterator[list[tuple[int, int, list[int], list[int]]]]:
    """The games in chunks of ``chunk``, each game ``(index, game seed, seat -> entrant, agent seeds)``, made as they
    are asked for: a huge ``num_games`` starts at once and holds only the games played so far."""
    jobs = []
    for g in range(num_games):
        block, rot = divmod(g, n)
        gseed = int(np.random.SeedSequence([seed, block]).generate_state(1, dtype=np.uint32)[0])
        seating = [(i + rot) % n for i in range(n)]  # seat i -> entrant
        aseeds = [int(np.random.SeedSequence([seed, g, i, 1]).generate_state(1, dtype=np.uint32)[0]) for i in range(n)]
        jobs.append((g, gseed, seating, aseeds))
        if len(jobs) == chunk:
            yield jobs
            jobs = []
    if jobs:
        yield jobs


def _check_out_dir(out_dir: str | os.PathLike[str], files: Sequence[str] = EvaluationResult.FILES) -> None:
    """Check that ``out_dir`` can be made (where it is missing) and written, and each of ``files`` there (a folder
    or a file that cannot be written in the way), before any game is played, creating nothing
    (:func:`risk_env._output.folder_problem`, :func:`risk_env._output.check_output_file`):
    :meth:`EvaluationResult.save` makes it after the games.

    Raises:
        ConfigError: ``out_dir`` is not text or a path; the folder cannot be made or written, or a file of ``files``
            cannot be written there (the message names it and gives the system's reason).
    """
    try:
        why = folder_problem(out_dir)
    except ConfigError as e:
        raise ConfigError(f"out_dir: {e}") from None
    if why is not None:
        raise ConfigError(f"cannot write results to {os.fspath(out_dir)!r}: {why}")
    for name in files:  # (a folder of that name was found after every game, the files before it written)
        path = os.path.join(os.fspath(out_dir), name)
        if os.path.lexists(path):
            try:
                check_output_file(path, "the results file")
            except ConfigError as e:
                raise ConfigError(f"cannot write results to {os.fspath(out_dir)!r}: {e}") from None


def _check_seat_count(rules: Any, n: int) -> None:
    """Refuse rules made for another player count than the ``n`` agents given (one per seat), in those terms.

    Raises:
        ConfigError: e.g. ``rules="duel"`` (2 players) with 3 agents.
    """
    preset = rules if isinstance(rules, str) else rules.get("preset") if isinstance(rules, Mapping) else None
    named, fixed = preset, rules_player_count(preset) if isinstance(preset, str) else None  # (a rules file's own too)
    given = rules.get("num_players") if isinstance(rules, Mapping) else None  # (a mapping's own count)
    if given is not None:
        fixed = check_player_count(given)
        if isinstance(rules, Mapping):
            named = f"with num_players={given}"
    if fixed is not None and fixed != n:
        raise ConfigError(
            f"rules {named if named and named.startswith('with ') else repr(named)} are for {fixed} players, but {n} "
            f"agents were given (one per seat): give {fixed} agents, or choose rules for {n} players"
        )


def _check_entrants(
    specs: list[Any], rules: Any, backend: str, device: str | None, batch_size: int | None, overrides: Mapping[str, Any]
) -> None:
    """What :func:`evaluate` refuses of :func:`round_robin`'s pairs before their games, checked before the first pair
    plays: the 2-player rules, the backend and its device, each spec (loaded once, as that backend loads it).

    Raises:
        RiskError / ConfigError: as :func:`evaluate` would for that pair.
    """
    if backend not in ("reference", "vector"):
        raise ConfigError(f"backend must be 'reference' or 'vector', got {backend!r}")
    cfg = resolve_rules(rules=rules, num_players=2, **overrides)
    if backend == "reference":
        if device is not None or batch_size is not None:
            return  # (evaluate names both arguments in its own message)
        from risk_env.agents import load_agent
        from risk_env.agents.base import check_fits_game

        # (each spec loaded, and each agent asked whether it plays these rules: a policy of other rules was refused at
        # its own pair, after the pairs before it had played and written their results)
        check_fits_game([load_agent(sp) if isinstance(sp, (str, os.PathLike)) else sp for sp in specs], Game(cfg))
        return
    require("torch", "train", "risk_env.evaluate(backend='vector')")
    import torch

    from ..vector import VectorGame
    from ..vector.specs import batched_policy

    game = VectorGame(cfg, device=_vector_device(device))
    gen = torch.Generator(device=game.device)
    for sp in specs:
        batched_policy(sp, game, gen)


def _vector_device(device: str | None) -> str:
    """The vector backend's torch device: ``device``, or ``"cpu"`` where none is given (None)."""
    return "cpu" if device is None else device


def default_workers() -> int:
    """CPU cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _spec_list(agents: Any, what: str) -> list[Any]:
    """``agents`` as a list: any ordered iterable (a list, a tuple, an array, a generator, a dict's keys: the seats'
    order is its).

    Raises:
        ConfigError: anything else (None, a number; a set or a mapping, whose order is not the caller's).
    """
    a_set = isinstance(agents, AbstractSet) and not isinstance(agents, KeysView)  # (a dict's keys keep its order)
    unordered = a_set or isinstance(agents, (Mapping, str, bytes))
    if unordered or not isinstance(agents, Iterable):
        raise ConfigError(
            f"agents must be a list of specs ({what}), got {type(agents).__name__} {agents!r:.60}: e.g. ['balanced', 'random']"
        )
    return list(agents)


def evaluate(
    agents: Sequence[Any],
    num_games: int = 100,
    num_players: int | None = None,
    rules: RulesConfig | str | Mapping[str, Any] | None = None,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    out_dir: str | os.PathLike[str] | None = None,
    max_turn_steps: int = DEFAULT_MAX_TURN_STEPS,
    backend: str = "reference",
    device: str | None = None,
    batch_size: int | None = None,
    **rule_overrides: Any,
) -> EvaluationResult:
    """Play ``num_games`` games between ``agents`` (one per seat, seats rotated) and summarize.

    Args:
        agents: one spec per seat (see :func:`risk_env.agents.load_agent`); 2..6 of them.
        num_games: games to play (>= 1); a multiple of the player count balances the seats.
        num_players: must equal ``len(agents)`` if given.
        rules: a :class:`RulesConfig`, a preset name (``"fast"``), a dict of switches (may hold
            ``"preset"``), or None (the docs/rules.md defaults); ``num_players`` is set from the agents.
        seed: seeds every game and agent (see the module docstring).
        workers: processes (default every available core; 1 = in this process). Never more than
            the number of game chunks. The vector backend plays in one process and refuses any other than 1.
        progress: show a tqdm progress bar (True or False; no bar where tqdm is not installed).
        out_dir: if given, :meth:`EvaluationResult.save` there.
        max_turn_steps: per-turn cap on action ids (see :func:`risk_env.tools.match.play_match`); a game that hits it
            is stopped, a loss for the seat deciding then and a draw for the other survivors.
        backend: ``"reference"`` (the AEC env, game by game in worker processes) or ``"vector"``: the batched
            engine, ``batch_size`` games in lockstep on ``device``, entrants as batched policies (the batched
            heuristics, ``random``, learned networks; :mod:`risk_env.tools.vector_evaluation`). Same schedule and
            statistics; it plays in this process (``workers`` other than None or 1 is refused).
        device: the vector backend's torch device (default None: ``"cpu"``); the reference backend, which plays on
            the CPU in ``workers`` processes, refuses any (``"cpu"`` too): it would not use it.
        batch_size: the vector backend's games at once (default ``min(num_games, 4096)``; the reference
            backend refuses one).
        **rule_overrides: rule switches applied on top (``turn_limit=200``, ``fortify="connected"``).

    Returns:
        an :class:`EvaluationResult`.

    Raises:
        RiskError / ConfigError: bad agents (``agents`` a single spec, a set or a mapping: no ordered specs), counts or
            rules; IllegalActionError: an agent played an illegal action (the message names it and the game seed);
            AgentError: an agent raised an exception that is no RiskError (its cause; the message names the agent,
            its seat and the game seed).
        ConfigError: ``device`` or ``batch_size`` given with ``backend="reference"``, which would not use them;
            ``workers`` other than 1 given with ``backend="vector"``, which plays its games in one process; a
            ``progress`` that is not True or False.
        ConfigError: ``out_dir`` cannot be created or written (checked before any game, creating nothing: the folder
            is made when the results are saved).
        MissingExtraError: openskill (or, with ``out_dir``, matplotlib) is missing
            (``pip install 'risk_env[eval]'``); checked before any game.
    """
    if isinstance(agents, (str, os.PathLike)):
        raise ConfigError(
            f"agents must be a list of specs, one per seat, got the single spec {agents!r}: e.g. [{agents!r}, 'random']"
        )
    specs = _spec_list(agents, "one per seat")
    n = len(specs)
    num_players, num_games, max_turn_steps, workers = (
        _whole(num_players, "num_players"),
        _whole(num_games, "num_games"),
        _whole(max_turn_steps, "max_turn_steps"),
        _whole(workers, "workers"),
    )
    if num_players is None:
        if not 2 <= n <= 6:
            given = ", ".join(_spec_text(sp) for sp in specs) or "none"
            raise ConfigError(
                f"give 2 to 6 agents, one per seat, got {n} ({given}): repeat a spec to seat it several times, "
                "e.g. ['balanced', 'random']"
            )
        num_players = n
    if 2 <= n <= 6:  # (also where num_players is given: it must be the agents' count, checked below)
        _check_seat_count(rules, n)
    if not isinstance(num_players, int) or not 2 <= num_players <= 6:
        raise ConfigError(f"num_players must be 2..6, got {num_players!r}")
    if n != num_players:
        raise ConfigError(
            f"give one agent per seat: {num_players} players need {num_players} agents, got {n} "
            "(repeat a spec to seat it several times, e.g. ['balanced', 'random', 'random', 'random'])"
        )
    if not isinstance(num_games, int) or isinstance(num_games, bool) or num_games < 1:
        raise ConfigError(f"num_games must be a positive integer, got {num_games!r}")
    if not isinstance(max_turn_steps, int) or max_turn_steps < 1:
        raise ConfigError(f"max_turn_steps must be a positive integer, got {max_turn_steps!r}")
    check_seed(seed, torch_seed=backend == "vector")
    seed = int(seed)  # (a numpy integer too: the result's seed is a plain int)
    if backend not in ("reference", "vector"):
        raise ConfigError(f"backend must be 'reference' or 'vector', got {backend!r}")
    _check_run_args(backend, workers, progress)
    vector_only = [f"device={device!r}"] if device is not None else []
    vector_only += [f"batch_size={batch_size!r}"] if batch_size is not None else []
    if backend == "reference" and vector_only:
        raise ConfigError(
            f"{', '.join(vector_only)}: device and batch_size are arguments of backend='vector' (the reference "
            "backend plays game by game on the CPU, in `workers` processes); leave them out or set backend='vector'"
        )
    cfg = resolve_rules(rules=rules, num_players=num_players, **rule_overrides)
    Game(cfg)  # reads the map (a file named by map=...): a bad one is refused here, before the progress bar
    require("openskill", "eval", "risk_env.evaluate (ratings)")  # before any game is played
    if out_dir is not None:
        require("matplotlib", "eval", "the win-rate plot")
        _check_out_dir(out_dir)
    if backend == "vector":
        return _evaluate_vector(specs, num_games, cfg, seed, device, batch_size, bool(progress), max_turn_steps, out_dir)
    rules_d = cfg.to_dict()
    labels = _labels(specs)
    spec_texts = [_spec_text(sp) for sp in specs]
    from risk_env.agents import load_agent

    for sp in specs:  # fail fast, in this process, on a bad spec
        if isinstance(sp, str):
            load_agent(sp)
    if workers is None:
        workers = default_workers()
    if not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be a positive integer or None, got {workers!r}")
    chunk = max(1, min(num_players, math.ceil(num_games / (workers * 4))))
    chunks = _schedule(num_games, num_players, int(seed), chunk)
    workers = min(workers, math.ceil(num_games / chunk))
    t0 = time.perf_counter()
    records: list[EvaluatedGame] = []
    bar = progress_bar(num_games, bool(progress))
    try:
        if workers == 1:
            _WORKER.clear()
            _setup(specs, rules_d)  # loads the agents (and torch, for a trained policy) once
            with _one_torch_thread():
                for c in chunks:
                    records.extend(_play_jobs(specs, labels, rules_d, c, max_turn_steps))
                    bar.update(len(c))
            _WORKER.clear()
        else:
            with (
                worker_context(specs) as ctx,
                ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init) as pool,
            ):
                # (a few chunks per worker in flight, the next submitted as one returns: not every chunk at once)
                pending = {
                    pool.submit(_play_jobs, specs, labels, rules_d, c, max_turn_steps) for c in islice(chunks, 4 * workers)
                }
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        part = fut.result()
                        records.extend(part)
                        bar.update(len(part))
                        for c in islice(chunks, 1):
                            pending.add(pool.submit(_play_jobs, specs, labels, rules_d, c, max_turn_steps))
    finally:
        bar.close()
    records.sort(key=lambda g: g.index)
    seconds = time.perf_counter() - t0
    stats = summarize(labels, spec_texts, records, num_players)
    turns = np.array([g.turns for g in records], dtype=np.float64)
    steps = np.array([g.steps for g in records], dtype=np.float64)
    won = np.array([g.turns for g in records if g.winner is not None], dtype=np.float64)
    result = EvaluationResult(
        entrants=labels,
        specs=spec_texts,
        num_players=num_players,
        num_games=num_games,
        seed=int(seed),
        workers=workers,
        rules=rules_d,
        games=records,
        stats=stats,
        mean_turns=float(turns.mean()),
        mean_steps=float(steps.mean()),
        decided_mean_turns=float(won.mean()) if len(won) else float("nan"),
        draw_rate=float(np.mean([g.winner is None for g in records])),
        seconds=seconds,
    )
    if out_dir is not None:
        result.save(out_dir)
    return result


def _evaluate_vector(
    specs: list[Any],
    num_games: int,
    cfg: RulesConfig,
    seed: int,
    device: str | None,
    batch_size: int | None,
    progress: bool,
    max_turn_steps: int,
    out_dir: str | os.PathLike[str] | None,
) -> EvaluationResult:
    """:func:`evaluate` with ``backend="vector"`` (the entrants labelled as the reference backend labels them; no
    ``device``: the CPU)."""
    require("torch", "train", "risk_env.evaluate(backend='vector')")
    from .vector_evaluation import evaluate_batched

    device = _vector_device(device)
    with _one_torch_thread() if str(device) == "cpu" else contextlib.nullcontext():
        result = evaluate_batched(
            specs, num_games, cfg, seed, device, batch_size, progress, max_turn_steps, labels=_labels(specs)
        )
    if out_dir is not None:
        result.save(out_dir)
    return result


def round_robin(
    agents: Sequence[Any],
    num_games: int = 100,
    rules: RulesConfig | str | Mapping[str, Any] | None = None,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    out_dir: str | os.PathLike[str] | None = None,
    max_turn_steps: int = DEFAULT_MAX_TURN_STEPS,
    backend: str = "reference",
    device: str | None = None,
    batch_size: int | None = None,
    **rule_overrides: Any,
) -> dict[tuple[str, str], EvaluationResult]:
    """Every pair of ``agents`` in 2-player games: ``(a, b) -> evaluate([a, b], ...)``, keyed by the
    entrants' labels (a repeated label gets ``#2``, ``#3``, ...; a pair's result names its two entrants
    within that pair).

    Each pair uses the same ``seed`` (and ``backend``, ``device``, ``batch_size``, as :func:`evaluate`).
    With ``out_dir``, each pair is saved under ``out_dir/<a>_vs_<b>/`` and the matrix as
    ``out_dir/round_robin.md``.

    Raises:
        ConfigError: a bad ``seed``, a single spec as ``agents``, or what :func:`evaluate` refuses; the rules, the
            backend's device, ``workers``, ``progress``, ``out_dir`` and every entrant are checked before the first
            pair plays.
    """
    check_seed(seed)
    if isinstance(agents, (str, os.PathLike)):
        raise ConfigError(f"agents must be a list of specs, got the single spec {agents!r}")
    specs = _spec_list(agents, "the entrants")
    _check_run_args(backend, _whole(workers, "workers"), progress)  # (before any entrant is loaded)
    if out_dir is not None:  # every pair's arguments, before the first pair plays or writes anything
        _check_out_dir(out_dir, ("round_robin.md",))
    _check_entrants(specs, rules, backend, device, batch_size, rule_overrides)

    out: dict[tuple[str, str], EvaluationResult] = {}
    labels = _labels(specs)  # (entrants of one label apart: "model", "model#2"; every pair kept)
    folders = {  # each pair's results folder, checked before the first pair plays
        (i, j): None if out_dir is None else Path(out_dir) / f"{labels[i]}_vs_{labels[j]}"
        for i, j in combinations(range(len(specs)), 2)
    }
    for sub in folders.values():
        if sub is not None:
            _check_out_dir(sub)
    for (i, j), sub in folders.items():
        a, b = specs[i], specs[j]
        la, lb = labels[i], labels[j]
        res = evaluate(
            [a, b],
            num_games=num_games,
            rules=rules,
            seed=seed,
            workers=workers,
            progress=progress,
            out_dir=sub,
            max_turn_steps=max_turn_steps,
            backend=backend,
            device=device,
            batch_size=batch_size,
            **rule_overrides,
        )
        out[(la, lb)] = res
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        (Path(out_dir) / "round_robin.md").write_text(round_robin_table(out) + "\n")
    return out
