"""One game between a person and agents, as the web app plays it: :class:`GameSession`.

The session drives the AEC environment (``risk_env.raw_env``, strict) through a
:class:`~risk_env.records.recorder.Recorder`, exactly as any client does: the
person's decision is an action id that the env's action mask allows (a
territory to click, or a choice such as a number of dice, an amount, a trade,
``end attack``), the agents act through :func:`risk_env.tools.match.ask_agent`
with the env's own info, and the rules are the env's. The browser is told
which ids are legal and what each means (:meth:`ActionCodec.action_to_string
<risk_env.envs.codec.ActionCodec.action_to_string>`); it decides nothing.

Everything the page shows comes from :meth:`GameSession.view`: the board's
frame (:meth:`BoardSvg.frame <risk_env.records.svg.BoardSvg.frame>`, with the
pending selection), the moves made since the person's last decision (each with
its dice and what it did, :func:`risk_env.records.replay.describe_step`, and the
board after it), the person's own cards and mission, and the decision asked for.
It is drawn from what the person's seat may know
(:class:`~risk_env.envs.view.GameView`, :class:`~risk_env.rules.knowledge.Knowledge`):
every seat's number of cards, never another seat's cards or mission, nothing of
the draw pile's order, and not the game's seed, from which the dice to come and
the cards could be rebuilt.

The game is recorded in the record format (:class:`~risk_env.records.record.GameRecord`,
replayable by ``risk-env replay``). A record holds the seed and every move, hence
everything hidden: the person gets it only once the game is over
(:meth:`GameSession.finished_record`); :meth:`GameSession.record` and
:meth:`GameSession.save` are the server's. Without a seed, each game's is drawn
from fresh entropy (:func:`~risk_env.records.recorder.fresh_seed`).

>>> from risk_env.rules.config import resolve_rules
>>> session = GameSession(resolve_rules("classic", num_players=2, map="small", setup="random", turn_limit=4), seat=0,
...                       agents=["random"], seed=3)
>>> view = session.view()
>>> view["decision"]["prompt"].startswith("Place")
True
>>> session.act(view["decision"]["territories"][0]["action"])["seat"]
0
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from ..agents import agent_label, load_agent
from ..agents.base import check_fits_game
from ..envs.action_input import as_integer
from ..envs.aec import raw_env
from ..envs.view import GameView
from ..errors import ConfigError, IllegalActionError, RiskError, StateError, check_seed
from ..records.ansi import distinct_labels, owner_label, seat_name
from ..records.record import GameRecord, ReplayStep, game_result
from ..records.recorder import Recorder, fresh_seed
from ..records.replay import describe_step
from ..records.svg import BoardSvg
from ..rules.config import RulesConfig, resolve_rules
from ..rules.missions import mission_text
from ..rules.moves import MoveKind
from ..rules.state import GameState, Phase
from ..tools.match import DEFAULT_MAX_TURN_STEPS, ask_agent

_log = logging.getLogger(__name__)

_CANNOT_GO_ON = "; the game cannot go on: start a new game"

__all__ = ["GameSession", "SYMBOL_NAMES", "RECORD_WHEN_OVER"]

SYMBOL_NAMES = ("infantry", "cavalry", "artillery", "wild")
"""Card symbols by number (docs/rules.md §6)."""

RECORD_WHEN_OVER = "the record is available when the game ends (it holds the seed, hence every card and die to come)"
"""Why the person cannot have the record of a game still on (:meth:`GameSession.finished_record`)."""

_ROLLS = (MoveKind.ATTACK, MoveKind.BLITZ, MoveKind.DEFEND, MoveKind.REROLL, MoveKind.SIX, MoveKind.KEEP_ROLL)


class GameSession:
    """A person at ``seat`` against agents, one game at a time (a new game with :meth:`new_game`).

    Args:
        rules: the rules: a :class:`~risk_env.rules.config.RulesConfig`, a preset or rules file name, or a mapping
            of switches (read by :func:`risk_env.rules.config.resolve_rules`); None: that function's defaults,
            the docs/rules.md rules for 4 players (the classic game).
        seat: the person's seat, ``0..num_players-1``.
        agents: a list (or tuple) of agent specs, one per other seat in seat order, or one spec for every other
            seat (alone, or as a list of one): names for :func:`risk_env.agents.load_agent` (``"balanced"``,
            ``"ppo-2p"``, a model path, ``module:attr``) or agent objects. A string is one spec.
        seed: the first game's seed (the agents get ``seed * 1000 + seat``); None (the default): one drawn
            from fresh entropy (:func:`~risk_env.records.recorder.fresh_seed`), as for each new game without a
            seed. An explicit seed replays a game (with the same agents and the same moves of the person); the
            seed is never shown to the person while the game is on (a finished game's record holds it).
        record: a file path (``str`` or path object): write each game's record when it ends (and when a new game
            replaces an unfinished one): the first game's to this path, the next ones' beside it with their number
            (``game.json``, ``game_2.json``, ``game_3.json``...), so that no game's record replaces another's. A
            game left before any move is not written, and the next game takes its file.
        max_agent_steps: the most action ids the agents may take between two decisions of the person (an integer
            >= 1).

    When an agent fails (it chooses an illegal id or no integer, it raises an exception, or the agents take more than
    ``max_agent_steps`` ids in a row), the game is stopped: it is over (:attr:`over`, :attr:`stopped` says why: the
    agent and the id it chose, or the type of its exception, whose message and traceback go to this module's logger,
    not to the person, as an agent's message may name its cards), its record ends with the reason and is
    written (with a record path), and :meth:`new_game` starts the next. The moves made until then stand, the
    person's last one included: nothing is undone (the agents' own state, their generators included, could not be
    wound back with the game's, so a game played on from before the failure would not be the one recorded).

    Raises:
        ConfigError: rules that do not resolve (an unknown preset or switch, a bad value, another type), a bad
            seat, the wrong number of agents, a negative seed, a record that is not a path, a max_agent_steps
            that is not an integer >= 1; nothing is built (no agent loaded).
        RiskError: an agent spec that does not load (the message says why), or an agent that fails before the
            person's first decision.
    """

    def __init__(
        self,
        rules: RulesConfig | str | Mapping[str, Any] | None,
        seat: int = 0,
        agents: Sequence[Any] | Any = ("random",),
        seed: int | None = None,
        record: str | os.PathLike[str] | None = None,
        max_agent_steps: int = 100 * DEFAULT_MAX_TURN_STEPS,
    ) -> None:
        rules = resolve_rules(rules=rules)
        n = rules.num_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ConfigError(f"the person's seat must be 0..{n - 1} (one of the {n} players), got {seat!r}")
        check_seed(seed, allow_none=True)
        seed = fresh_seed() if seed is None else int(seed)
        if record is not None and (not isinstance(record, (str, os.PathLike)) or not os.fspath(record)):
            raise ConfigError(f"record must be a file path (a str or a path object) or None, got {record!r}")
        steps = max_agent_steps
        if isinstance(steps, (bool, np.bool_)) or not isinstance(steps, (int, np.integer)) or steps < 1:
            raise ConfigError(f"max_agent_steps must be an integer >= 1, got {max_agent_steps!r}")
        # one spec (a name, a path, an agent) serves every other seat; only a list or tuple is one per seat
        specs = list(agents) if isinstance(agents, (list, tuple)) else [agents]
        others = [p for p in range(n) if p != seat]
        if len(specs) == 1:
            specs = specs * len(others)
        if len(specs) != len(others):
            raise ConfigError(f"give one agent for every other seat ({len(others)}) or one for all, got {len(specs)}")
        base = raw_env(rules=rules)  # rules the map cannot play (ConfigError) are refused before an agent loads
        self.rules = rules
        self.seat = int(seat)
        self.agents = {p: load_agent(spec, seed=int(seed) * 1000 + p) for p, spec in zip(others, specs, strict=True)}
        check_fits_game(self.agents.values(), base.game)  # (a policy of other rules: refused before the page is served)
        agent_names = [agent_label(specs[others.index(p)]) if p != seat else "human" for p in range(n)]
        self.labels = distinct_labels(["you" if p == seat else agent_names[p] for p in range(n)])
        """A label per seat as the page shows it (``you``; ``balanced 1``, ``balanced 2`` where a name repeats)."""
        self.env = Recorder(base, players=agent_names)
        self.raw = self.env.unwrapped
        self.game = self.raw.game
        self.board = BoardSvg(self.game, self.labels)
        self.record_path = Path(record) if record is not None else None
        self.max_agent_steps = int(max_agent_steps)
        self.lock = threading.Lock()
        self.seed = seed
        """The game's seed (the server's to know: no view carries it)."""
        self.saved: Path | None = None
        self.stopped: str | None = None
        """Why an agent's failure stopped this game (the agent and the id it chose), or None."""
        self.games = 0
        """The number of the game being played, its record file's (:attr:`record_target`): games started so far, less
        those left before any move, which are not written and give their number to the next game."""
        self._new(self.seed)

    # ------------------------------------------------------------------ games
    def _new(self, seed: int) -> None:
        self.seed = int(seed)
        self.games += 1
        self.env.reset(seed=self.seed)
        for p, agent in self.agents.items():
            reset = getattr(agent, "reset", None)
            if reset is not None:
                reset(self.seed * 1000 + p)
        self.history: list[dict[str, Any]] = []  # every move so far, as the page lists them
        self.saved = None
        self.stopped = None
        self._events: list[dict[str, Any]] = []
        self._advance()

    def new_game(self, seed: int | None = None) -> dict[str, Any]:
        """Start the next game (``seed``: its seed; default: one drawn from fresh entropy, not to be guessed from
        the last); an unfinished game's record is written first (when a record path was given: the server's
        file, not handed to the person). Returns :meth:`view`.

        Raises:
            ConfigError: a seed that is not an integer >= 0; nothing changes.
        """
        check_seed(seed, allow_none=True)
        if not self.over and self.record_path is not None and self.history:
            self.save("unfinished")
        elif self.saved is None and not self.history:  # (a game left before any move is not written: the next
            self.games -= 1  # game takes its file, so that the numbered files have no gap)
        self._new(fresh_seed() if seed is None else int(seed))
        return self.view()

    @property
    def state(self) -> GameState:
        """The live position (read-only by convention)."""
        return self.raw.game_state

    @property
    def over(self) -> bool:
        """The game has ended: a win, the turn limit, or an agent's failure (:attr:`stopped`)."""
        return self.stopped is not None or self.state.phase == Phase.GAME_OVER

    def record(self) -> GameRecord:
        """The game's record so far (a finished game's result, or ``"unfinished"``): the server's. It holds the
        seed and every move, hence every seat's cards and mission and the dice to come: never hand it to the
        person while the game is on (:meth:`finished_record` is the person's)."""
        rec = self.env.record
        if rec is None:  # pragma: no cover - the constructor resets the env, which starts a record
            raise RiskError("no game has been started")
        if rec.result is None:
            copy = GameRecord.from_dict(rec.to_dict())
            copy.result = game_result(self.game, self.state, "unfinished")
            return copy
        return rec

    def finished_record(self) -> GameRecord:
        """The record of the game, once it is over (what the page's download gets: the seed, every move).

        Raises:
            StateError: the game is still on (:data:`RECORD_WHEN_OVER`); nothing changes.
        """
        if not self.over:
            raise StateError(RECORD_WHEN_OVER)
        return self.record()

    @property
    def record_target(self) -> Path | None:
        """Where this game's record is written: the record path for the first game, ``<stem>_<n><suffix>`` beside
        it for game ``n`` after it (None without a record path)."""
        p = self.record_path
        if p is None or self.games <= 1:
            return p
        return p.with_name(f"{p.stem}_{self.games}{p.suffix}")

    def save(self, ended: str | None = None, path: str | os.PathLike[str] | None = None) -> Path:
        """Write the record to ``path`` (default: :attr:`record_target`, this game's file beside the record path):
        the server's file, at any time (the page's save asks :meth:`finished_record` first).

        Raises:
            ConfigError: no path was given and the session has none.
        """
        target = Path(path) if path is not None else self.record_target
        if target is None:
            raise ConfigError("no record path: start the app with --record FILE, or download the record instead")
        rec = self.record()
        if ended is not None and rec.result is not None and rec.result.get("ended") != ended and not self.over:
            rec.result["ended"] = ended
        self.saved = rec.save(target)
        return self.saved

    # ------------------------------------------------------------------ moves
    def _step(self, action: int) -> None:
        """Step the env with ``action`` for the seat to act; note the move it completes, if any."""
        s = self.state
        before = s.copy()
        seat = self.game.current_player(s)
        moves = s.steps
        self.env.step(action)
        if self.state.steps != moves:
            move_text = self.raw.last_move
            move = self.game.parse_move(before, move_text)
            step = ReplayStep(self.state.steps, seat, move_text, move, before, self.state.copy())
            self._note(step)

    def _note(self, step: ReplayStep) -> None:
        a = step.state
        dice = None
        waiting = step.move.kind in (MoveKind.ATTACK, MoveKind.BLITZ) and a.phase == Phase.DEFEND  # the defender rolls next
        if step.move.kind in _ROLLS and a.last_roll and not waiting:
            z = a.last_roll.index(0)
            dice = {"attacker": list(a.last_roll[:z]), "defender": list(a.last_roll[z + 1 :])}
        # the notes speak of the person in the third person ("player_0 (you) is eliminated", not "you is")
        names = [f"{seat_name(self.game, p)} (you)" if p == self.seat else self.labels[p] for p in range(self.game.num_players)]
        event = {
            "k": step.index,
            "seat": step.seat,
            "who": self._who(step.seat),
            "text": step.text,
            "note": describe_step(self.game, step, names),
            "dice": dice,
            "frame": self.board.frame(GameView(self.game, a, self.seat).state, step.text),  # what the person may know
        }
        self.history.append({k: v for k, v in event.items() if k != "frame"})
        self._events.append(event)

    def _who(self, seat: int) -> str:
        return self.labels[seat] if 0 <= seat < len(self.labels) else seat_name(self.game, seat)

    def _advance(self) -> None:
        """Let the agents act (and dead agents take their dead step) until the person decides or the game ends."""
        env = self.env
        steps = 0
        while env.agents:
            agent = env.agent_selection
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = self.raw.agent_name_mapping[agent]
            if seat == self.seat:
                return
            if steps >= self.max_agent_steps:
                actions = f"{steps} action" + ("" if steps == 1 else "s")
                why = f"the agents took {actions} without the game reaching your decision; it was stopped"
                self._stop(f"stopped after {actions} of the agents", why)
                raise RiskError(why)
            try:
                answer = ask_agent(self.agents[seat], obs, info)
            except IllegalActionError:  # its own refusal, or its wrapper's (CallableAgent: no integer): no id, below
                answer = None
            except Exception as e:  # the agent's own failure: the game stops, not the server
                self._agent_failed(agent, seat, e)
            action = as_integer(answer)
            if action is None:  # (neither its answer nor its message: a list of ids would be its legal ones)
                why = f"{self._agent_label(seat)} chose no action id (no integer)"
                self._stop(f"illegal action by {agent}", why + _CANNOT_GO_ON)
                raise RiskError(why + _CANNOT_GO_ON)
            try:
                self._step(action)
            except IllegalActionError as e:
                # the env's message lists the agent's legal ids (its trades name its cards): the server's, in the
                # chained exception, never the person's
                why = (
                    f"agent {self.labels[seat]!r} ({seat_name(self.game, seat)}) chose the illegal action id {action}; "
                    "the game cannot go on: start a new game"
                )
                self._stop(f"illegal action by {agent}", why)
                raise RiskError(why) from e
            steps += 1
        if self.over and self.record_path is not None and self.saved is None:
            self.save()

    def _agent_label(self, seat: int) -> str:
        return f"agent {self.labels[seat]!r} ({seat_name(self.game, seat)})"

    def _agent_failed(self, agent: str, seat: int, e: Exception) -> NoReturn:
        """Stop the game for an agent that raised ``e`` instead of answering. The person is told the agent and the
        exception's type, not its message (an agent's text may name its cards); the server's log gets the traceback."""
        _log.error("%s raised %s", self._agent_label(seat), type(e).__name__, exc_info=e)
        why = f"{self._agent_label(seat)} failed ({type(e).__name__}){_CANNOT_GO_ON}"
        self._stop(f"agent error by {agent}", why)
        raise RiskError(why) from e

    def _stop(self, ended: str, why: str) -> None:
        """End the game for an agent's failure: ``ended`` for its record's result, ``why`` for the person."""
        self.stopped = why
        self.env.finish(ended)
        if self.record_path is not None and self.saved is None:
            self.save()

    def act(self, action: Any) -> dict[str, Any]:
        """Play the person's action id, then let the agents act; returns :meth:`view` (with the moves made since).

        Raises:
            IllegalActionError: the game is over, it is not the person's decision, or the id is not legal now
                (the message lists the legal ones); nothing changes.
            RiskError: an agent failed after the person's move, which stands: the game is stopped (:attr:`over`,
                :attr:`stopped` says why, as the message does, naming the agent and the id it chose), its record
                written (with a record path); :meth:`new_game` starts the next.
        """
        if self.over:
            raise IllegalActionError("the game is over: start a new game")
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"an action is an integer id in 0..{self.raw.codec.n - 1}, got {action!r}")
        if self.game.current_player(self.state) != self.seat:
            raise IllegalActionError("it is not your decision")
        self._step(int(action))  # the env's mask decides; an illegal id raises and changes nothing
        self._advance()
        return self.view()

    # ------------------------------------------------------------------ what the page shows
    def seen(self) -> GameView:
        """What the person's seat may know now (:class:`~risk_env.envs.view.GameView`): all the page is drawn from."""
        return self.raw.view(self.raw.possible_agents[self.seat])

    def decision(self, seen: GameView | None = None) -> dict[str, Any] | None:
        """The person's decision now (None when the agents act or the game is over): ``prompt``, ``territories``
        (``{"t", "action", "label"}`` for each legal territory id: a click on the board) and ``buttons``
        (``{"action", "label"}`` for each other legal id), from ``seen`` (default: :meth:`seen`)."""
        seen = seen or self.seen()
        s = seen.state
        if self.over or self.game.current_player(s) != self.seat:
            return None
        codec, sel = self.raw.codec, self.raw.selection
        mask = codec.mask(s, sel)
        territories, buttons = [], []
        for aid in np.flatnonzero(mask):
            a = int(aid)
            label = codec.action_to_string(s, a, sel)
            if a < codec.amount:
                territories.append({"t": a - codec.territory, "action": a, "label": label})
            else:
                buttons.append({"action": a, "label": _button_label(label)})
        can_trade = codec.trade >= 0 and bool(mask[codec.trade : codec.trade_end].any())
        return {"prompt": _prompt(self, s, can_trade), "territories": territories, "buttons": buttons}

    def hand(self, seen: GameView | None = None) -> list[dict[str, Any]]:
        """The person's own cards: ``{"card", "name", "symbol"}`` (from ``seen``, default: :meth:`seen`)."""
        g = self.game
        if not g.uses_cards:
            return []
        seen = seen or self.seen()
        return [{"card": int(c), "name": g.map.card_name(c), "symbol": SYMBOL_NAMES[int(g.card_symbol[c])]} for c in seen.hand]

    def view(self, board: bool = False) -> dict[str, Any]:
        """What the page shows now, as JSON-compatible data (the moves since the last call are handed out once).

        Keys: ``seat``, ``players`` (labels), ``colors``, ``map``, ``frame`` (the board now, with the pending
        selection), ``events`` (the moves since the last view: ``k``, ``seat``, ``who``, ``text``, ``note``,
        ``dice``, ``frame``), ``decision``, ``hand``, ``mission`` (the person's own, or None), ``over``,
        ``result``, ``moves``, ``record`` (the path written, or None); with ``board``, ``svg`` (the board's picture)
        and ``history`` (every move so far, as ``events`` without their frames).

        All of it is what the person's seat may know (:meth:`seen`): every seat's number of cards, the person's
        own cards and mission only, and no seed (the finished game's record holds it).
        """
        seen = self.seen()
        s = seen.state
        events, self._events = self._events, []
        mission = seen.my_mission
        out: dict[str, Any] = {
            "seat": self.seat,
            "players": list(self.labels),
            "colors": self.board.colors[: self.game.num_players],
            "map": self.game.map.name,
            "frame": self.board.frame(s, self.raw.last_move, selection=self.raw.selection),
            "events": events,
            "decision": self.decision(seen),
            "hand": self.hand(seen),
            "mission": mission_text(mission) if mission >= 0 else None,
            "over": self.over,
            "result": _result(self, s),
            "moves": int(s.steps),
            "record": str(self.saved) if self.saved is not None else None,
        }
        if board:
            out["svg"] = self.board.svg(s, self.raw.last_move, selection=self.raw.selection)
            out["history"] = list(self.history)
        return out


def _button_label(label: str) -> str:
    """A choice's text for a button: ``"amount 7"`` reads ``7``; the rest as the codec says it."""
    return label.removeprefix("amount ")


def _result(session: GameSession, s: GameState) -> str:
    if session.stopped is not None:
        return f"The game was stopped: {session.stopped}."
    if s.phase != Phase.GAME_OVER:
        return ""
    if s.winner == session.seat:
        return f"You win after {s.turn} turns!"
    if s.winner >= 0:
        return f"{session._who(s.winner)} ({seat_name(session.game, s.winner)}) wins after {s.turn} turns."
    return f"The turn limit ends the game after {s.turn} turns: no winner."


def _armies(n: int) -> str:
    """``1 army``, ``3 armies``."""
    return f"{n} army" if n == 1 else f"{n} armies"


def _prompt(session: GameSession, s: GameState, can_trade: bool = False) -> str:
    """What the person is asked to do, in words (``can_trade``: a trade is among the legal choices now).

    A variant's own decision (the capital phase, a roll that waits, docs/rules.md §8) is put in the variant's
    words (:meth:`Game.decision_text <risk_env.rules.engine.Game.decision_text>`); when the person
    commands a variant's army (the allied army, §7) the territories to click are the ones they command.
    """
    g, sel = session.game, session.raw.selection
    name = g.map.name_of
    asked = g.decision_text(s)
    if asked is not None:
        return f"{asked[:1].upper()}{asked[1:]}."
    ph = s.phase
    commanding = g.commanding(s) == session.seat == g.current_player(s)  # the person acts for a variant's army
    army = f" for the {g.army_name()} army" if commanding else ""
    yours = "one of the territories you command" if commanding else "one of your territories"
    if ph == Phase.CLAIM:
        return "Claim a territory: click an unclaimed one."
    if ph == Phase.SETUP_PLACE:
        if s.setup_step == 2:
            return "Place an army for the neutral: click one of its territories."
        return f"Place an army on {yours} ({s.setup_left[s.player]} left)."
    if ph == Phase.REINFORCE:
        if sel.trade >= 0:
            return "Choose the territory that gets the +2 bonus of this trade."
        if sel.src >= 0:
            return f"How many armies on {name(sel.src)}?"
        what = "Trade a set of cards first (you must). " if s.forced else ""
        return what + f"Place {_armies(s.to_place)}{army}: click {yours}" + (", or trade cards." if can_trade else ".")
    if ph == Phase.ATTACK:
        if sel.dst >= 0:
            return f"Attack {name(sel.dst)} from {name(sel.src)}: how many dice (or blitz)?"
        if sel.src >= 0:
            return f"Attack from {name(sel.src)}: click the territory to attack."
        more = " Roll again in the last battle, or pick another." if session.raw.codec.can_continue(s) else ""
        return f"Attack{army}: click {yours} to attack from, or end the attack." + more
    if ph == Phase.DEFEND:
        label = owner_label(g, int(s.owner[s.att_dst]))  # the person may roll for a variant's army (§7)
        dice = "die" if s.att_dice == 1 else "dice"
        defend = f"defend it for the {label} army" if label else "defend"
        return f"{name(s.att_dst)} is attacked from {name(s.att_src)} with {s.att_dice} {dice}: {defend} with how many?"
    if ph == Phase.OCCUPY:
        lo, hi = g.occupy_range(s)
        who = f"The {g.army_name()} army" if commanding else "You"
        return f"{who} conquered {name(s.att_dst)}: move in how many armies ({lo}..{hi})?"
    if ph == Phase.FORTIFY:
        if sel.dst >= 0:
            return f"Move how many armies from {name(sel.src)} to {name(sel.dst)}?"
        if sel.src >= 0:
            return f"Fortify from {name(sel.src)}: click where the armies go."
        return "Fortify: click a territory to move armies from, or end your turn."
    return ""
