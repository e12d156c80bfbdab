"""The hooks of a rules variant: what shared code asks the variants a game plays with.

A variant (the allied army, secret missions, capitals, the expert dice rules, stars
trades, ...) is one module holding one :class:`Variant` subclass; the subclass overrides
the hooks it needs and nothing else, and :data:`risk_env.rules.variants.VARIANTS` lists it.
A :class:`~risk_env.rules.engine.Game` builds one instance of each variant its rules turn
on (:attr:`Game.variants <risk_env.rules.engine.Game.variants>`) and calls their hooks
where the rules, the action codec, the observations, the text and the pictures may differ;
shared code never tests a variant's switch itself (as python-chess's variant boards
override a few methods of ``Board``).

Every hook has a default that keeps the core rules (docs/rules.md §1-§5). The groups:

* **Which rules**: :meth:`Variant.applies` (from the :class:`RulesConfig`), :meth:`check`
  (refuse a map or rules the variant cannot play), :attr:`moves` (the move kinds or forms it adds).
* **Setup** (docs/rules.md §3): :meth:`setup`, :meth:`claims`, :meth:`after_claims`,
  :meth:`before_first_turn`, :meth:`after_new_game`, :meth:`granted_armies`.
* **Turn flow** (§4): :meth:`begin_turn`, :meth:`end_attack`, :meth:`decider`, :meth:`commander`,
  :meth:`attackable`, :meth:`received`, :meth:`takes_cards`, :meth:`eliminated`,
  :meth:`new_battle`, :meth:`draws_roll`, :meth:`winner`, :meth:`win_text`, :meth:`waiting_text`.
* **Legality** (§4): :meth:`precheck`, :meth:`check_move`, :meth:`legal_moves`,
  :meth:`apply`, :meth:`whose`.
* **Card trades** (§4.1, §6), for a variant that trades cards its own way: :meth:`trade_spec`,
  :meth:`trade_value`, :meth:`trade_cards`, :meth:`trade_moves`, :meth:`check_trade`,
  :meth:`trade_block`, :meth:`trade_mask`, :meth:`trade_of_id`, :meth:`id_of_trade`,
  :meth:`trade_id_text`, :meth:`trade_id_refusal`.
* **Positions**: :meth:`invariant_violations`, :meth:`fill_hidden` (what another seat may not
  know, :mod:`risk_env.rules.knowledge`).
* **The action ids and observations** (:mod:`risk_env.envs.layout`, :mod:`risk_env.envs.codec`,
  :mod:`risk_env.envs.observation`): :attr:`rank`, :meth:`action_blocks`,
  :meth:`observation_blocks`, :meth:`owns_decision`, :meth:`mask`, :meth:`translate`,
  :meth:`move_to_action`, :meth:`action_text`, :meth:`id_refusal`, :meth:`observe`,
  :meth:`critic_state`.
* **Text and pictures** (:mod:`risk_env.records`, :mod:`risk_env.tools`, :mod:`risk_env.web`): :meth:`owner_label`,
  :meth:`owner_role`, :meth:`summary`, :meth:`phase_note`, :meth:`legend`, :meth:`notes`,
  :meth:`territory_marks`, :meth:`decision_text`.
* **Agents** (:mod:`risk_env.agents`): :meth:`default_move`.

Hooks run on the reference engine's hot paths, so a game keeps, for each hook, only the
variants that override it (:meth:`Game.hooked <risk_env.rules.engine.Game.hooked>`): under
the core rules every hook call is a loop over nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .moves import Move, MoveSpec
from .state import GameState

if TYPE_CHECKING:
    from .config import RulesConfig
    from .engine import Game

__all__ = ["Variant"]


class Variant:
    """One rules variant of one game (see the module docstring). Subclasses override hooks.

    Args:
        game: the game whose rules turned the variant on (read its public tables).

    Attributes:
        name: the variant's name (also its layout part's, :mod:`risk_env.envs.layout`).
        section: the docs/rules.md section that describes it.
        rank: where its action and observation blocks go in the layouts: after the blocks of
            every lower rank (a new variant takes a rank above every other, so no existing
            layout moves).
        moves: the move kinds or forms it adds (:class:`~risk_env.rules.moves.MoveSpec`).
    """

    name: ClassVar[str] = ""
    section: ClassVar[str] = ""
    rank: ClassVar[int] = 0
    moves: ClassVar[tuple[MoveSpec, ...]] = ()

    def __init__(self, game: Game) -> None:
        self.game = game

    @staticmethod
    def applies(config: RulesConfig) -> bool:
        """Whether rules ``config`` play with this variant."""
        return False

    def check(self) -> None:
        """Refuse (:class:`~risk_env.errors.ConfigError`) a map or rules the variant cannot play."""

    # ------------------------------------------------------------------ setup
    def setup(self, s: GameState) -> None:
        """Starting values of the variant's own fields in a new game (before any chance)."""

    def claims(self) -> int:
        """Territories each player claims (or is dealt) in setup; 0: all of them, in turn."""
        return 0

    def after_claims(self, s: GameState) -> None:
        """After the players' claims or deal (the territories left unclaimed are the variant's to fill)."""

    def before_first_turn(self, s: GameState) -> bool:
        """After setup: take the game to a decision of the variant's before the first turn
        (set the phase and the player) and return True, or return False."""
        return False

    def after_new_game(self, s: GameState) -> None:
        """Last step of a new game (after every other draw, so the others match a game without it)."""

    def granted_armies(self) -> int:
        """Armies the variant puts on the board in setup beyond the seats' starting armies."""
        return 0

    # ------------------------------------------------------------------ turn flow
    def begin_turn(self, s: GameState) -> None:
        """At the start of a turn, after the reinforcements are counted (``s.to_place``)."""

    def end_attack(self, s: GameState) -> bool:
        """The player to act ended the attack phase: take over (set what comes next) and return
        True, or return False for the fortify phase."""
        return False

    def decider(self, s: GameState) -> int | None:
        """The seat that decides now, if the variant decides who (None: the core rules do)."""
        return None

    def commander(self, s: GameState) -> int:
        """The seat commanding the variant's army in its sub-turn now (``s.commander`` of the allied
        army, §7), or -1."""
        return -1

    def attackable(self, s: GameState, ok: np.ndarray) -> np.ndarray:
        """Bool ``(T,)`` of territories the player on turn may attack (borders aside), given the
        core rules' ``ok`` (every territory not its own)."""
        return ok

    def received(self, s: GameState, armies: int) -> None:
        """The player on turn received ``armies`` (a set's value and its +2 bonus) in its reinforcements."""

    def takes_cards(self, s: GameState) -> bool:
        """Whether the one on turn draws a card for a conquest and takes an eliminated player's cards."""
        return True

    def eliminated(self, s: GameState, loser: int, by: int) -> None:
        """Seat ``loser`` was eliminated by ``by`` (the one on turn)."""

    def new_battle(self, s: GameState, move: Move) -> None:
        """An attack or blitz ``move`` is about to roll (``s.att_src``/``s.att_dst`` still hold the last battle)."""

    def draws_roll(self, s: GameState, defender_dice: int) -> bool:
        """Draw the pending battle's roll (``s.att_src -> s.att_dst``, ``s.att_dice`` dice against
        ``defender_dice``) the variant's way and return True, or return False for the core roll."""
        return False

    def winner(self, s: GameState) -> int:
        """After a move of the game's turns: the seat that has won by the variant's rules, or -1."""
        return -1

    def win_text(self, s: GameState) -> str | None:
        """How the winner of a finished ``s`` won by the variant's rules, for people, if it did."""
        return None

    def waiting_text(self, s: GameState) -> str | None:
        """What waits in ``s`` by the variant's rules, for people (a roll that may still change), if anything."""
        return None

    # ------------------------------------------------------------------ legality
    def precheck(self, s: GameState, move: Move) -> str | None:
        """Why ``move`` (of any kind) is illegal now by the variant's rules, before its kind's own
        checks, or None."""
        return None

    def check_move(self, s: GameState, move: Move) -> str | None:
        """For a kind in :attr:`moves`: why ``move`` is illegal (its phase holds), or None."""
        return None

    def legal_moves(self, s: GameState) -> list[Move] | None:
        """Every legal move, when the decision is the variant's (None: not its decision)."""
        return None

    def apply(self, s: GameState, move: Move) -> None:
        """Apply a legal move of a kind in :attr:`moves`."""
        raise NotImplementedError(f"{type(self).__name__} has no move {move.kind!r}")

    def whose(self, s: GameState, purpose: str) -> str | None:
        """How illegal-move messages name the territories of the one to act now ("yours"), if the
        variant names them: ``purpose`` is ``"place"``, ``"attack"`` (the source) or ``"target"``
        (why a target may not be attacked)."""
        return None

    # ------------------------------------------------------------------ card trades (docs/rules.md §4.1, §6)
    def trade_spec(self) -> MoveSpec | None:
        """The form of the ``TRADE`` kind under the variant, if it trades another way."""
        return None

    def trade_value(self, s: GameState, move: Move) -> int:
        """Armies a ``TRADE`` move of the variant's form brings (no +2 bonus)."""
        raise NotImplementedError

    def trade_cards(self, s: GameState, move: Move) -> tuple[int, ...]:
        """The cards a ``TRADE`` move of the variant's form gives up."""
        raise NotImplementedError

    def trade_moves(self, s: GameState) -> list[Move]:
        """Every ``TRADE`` move of the variant's form legal now (trading allowed)."""
        raise NotImplementedError

    def check_trade(self, s: GameState, move: Move) -> str | None:
        """Why a ``TRADE`` move of the variant's form is illegal (trading allowed), or None."""
        return None

    @staticmethod
    def trade_block() -> tuple[str, tuple[int, ...], str] | None:
        """The action ids' trade block ``(name, shape, meaning)`` of the variant's form, if it
        trades cards its own way."""
        return None

    def trade_mask(self, s: GameState) -> np.ndarray:
        """int8: the trade ids legal now (trading allowed)."""
        raise NotImplementedError

    def trade_of_id(self, i: int) -> Move:
        """The ``TRADE`` move of trade id ``i``."""
        raise NotImplementedError

    def id_of_trade(self, move: Move) -> int:
        """The trade id of a ``TRADE`` move of the variant's form."""
        raise NotImplementedError

    def trade_id_text(self, i: int) -> str:
        """What trade id ``i`` means, for people."""
        raise NotImplementedError

    def trade_id_refusal(self, i: int) -> str:
        """Why trade id ``i`` is illegal now (trading allowed, the hand cannot make it)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ positions
    def invariant_violations(self, s: GameState) -> list[str]:
        """The variant's invariants that ``s`` breaks (docs/rules.md §5 and the variant's section)."""
        return []

    def fill_hidden(self, s: GameState, seat: int, rng: np.random.Generator | None) -> None:
        """Fill the variant's fields that ``seat`` may not know in a position built from its
        knowledge (:meth:`Knowledge.position <risk_env.rules.knowledge.Knowledge.position>`):
        consistently with that knowledge, in a fixed way (``rng`` None) or drawn from ``rng``."""

    # ------------------------------------------------------------------ action ids and observations
    @staticmethod
    def action_blocks(dims: Any) -> Sequence[tuple[str, tuple[int, ...], str]]:
        """Its action-id blocks ``(name, shape, meaning)``, laid out by :attr:`rank` (``dims``:
        :class:`risk_env.envs.layout.Dims`, the sizes of the game's rules and map)."""
        return ()

    @staticmethod
    def observation_blocks(dims: Any) -> Sequence[tuple[str, tuple[int, ...], str]]:
        """Its flat observation blocks ``(name, shape, meaning)``, laid out by :attr:`rank`."""
        return ()

    def owns_decision(self, s: GameState) -> bool:
        """Whether the decision now is the variant's (its mask and ids are then the variant's)."""
        return False

    def mask(self, codec: Any, s: GameState, sel: Any, m: np.ndarray) -> None:
        """Mark in ``m`` (int8 ``(N,)``, zeros) the legal ids of the variant's decision."""

    def translate(self, codec: Any, s: GameState, action: int, sel: Any) -> Move | tuple[str, int] | None:
        """What id ``action`` does at the variant's decision (the mask allows it)."""
        return None

    def move_to_action(self, codec: Any, s: GameState, move: Move, sel: Any) -> int | None:
        """The next action id that plays ``move`` at the variant's decision (None: not its move)."""
        return None

    def action_text(self, codec: Any, s: GameState, action: int, sel: Any) -> str | None:
        """What id ``action`` means now, if the variant says (None: the codec's own text)."""
        return None

    def id_refusal(self, codec: Any, s: GameState, action: int) -> str | None:
        """Why id ``action`` is illegal now, if the variant says (its ids, or its pending decision)."""
        return None

    def observe(self, encoder: Any, s: GameState, seat: int, out: np.ndarray) -> None:
        """Write the variant's observation blocks of ``seat``'s observation into ``out`` (float32 ``(D,)``;
        ``encoder.layout`` has their slices)."""

    def critic_state(self, s: GameState, seat: int) -> np.ndarray | None:
        """What the variant adds to the full position of a centralized critic (``env.state()``,
        float32; it may hold what players may not know), or None."""
        return None

    # ------------------------------------------------------------------ text and pictures
    def owner_label(self, owner: int, short: bool = False) -> str | None:
        """The label of owner id ``owner`` in text boards and pictures (``short``: one character),
        if it is the variant's (its army)."""
        return None

    def owner_role(self, owner: int) -> str | None:
        """Who plays owner id ``owner`` when it is the variant's (for seat lists), else None."""
        return None

    def summary(self, s: GameState, viewer: int | None) -> str | None:
        """One sentence on the variant for a person at the table (``viewer``'s own part only)."""
        return None

    def decision_text(self, s: GameState, short: bool = False) -> str | None:
        """What the variant's own decision in ``s`` asks of the one deciding, if the decision is the variant's
        (the capital phase, a roll that waits), else None: a phrase addressed to them, without a full stop
        (``"choose your capital among your territories (holding every capital wins)"``), which the browser
        game's prompt and the terminal game's status line show; ``short``: a few words for a picture's headline
        (``"choose a capital (★)"``)."""
        return None

    def phase_note(self, s: GameState, who: Callable[[int], str]) -> str | None:
        """A text board's line on a decision of the variant's own phase (who does what), the seats
        named by ``who(seat)``; it comes before every variant's :meth:`notes`."""
        return None

    def legend(self, s: GameState, who: Callable[[int], str]) -> str | None:
        """A compact board's line naming the territories the variant marks (:meth:`territory_marks`)."""
        return None

    def notes(self, s: GameState, viewer: int | None, who: Callable[[int], str]) -> list[str]:
        """Lines of a text board under the board: what ``viewer`` may see (None: a spectator), the
        seats named by ``who(seat)``."""
        return []

    def territory_marks(self, s: GameState) -> dict[int, tuple[str, str, int]]:
        """Territories a board marks: ``territory -> (text, short mark, seat)``, the text naming the
        seat with ``{}`` (``("capital of {}", "#", 2)``)."""
        return {}

    # ------------------------------------------------------------------ agents
    def default_move(self, view: Any) -> Move | None:
        """A sensible move for a scripted agent at the variant's own decision (``view``: a
        :class:`~risk_env.envs.view.GameView`), or None when the decision is not the variant's."""
        return None
