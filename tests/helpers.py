"""Shared test utilities: hand-built positions and an independent rules checker.

Nothing here imports the engine's private helpers: the expected values (income,
set values, losses in a roll) are recomputed from docs/rules.md so the tests are an
independent check of :mod:`risk_env.rules.engine`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

from risk_env import ActionCodec, Game, GameState, Move, MoveKind, Phase, RulesConfig
from risk_env.envs.codec import Selection
from risk_env.errors import IllegalActionError
from risk_env.rules.missions import mission_complete

# ---------------------------------------------------------------- docs/rules.md facts, restated

START_ARMIES = {2: 40, 3: 35, 4: 30, 5: 25, 6: 20}  # docs/rules.md §3
ESCALATING = [4, 6, 8, 10, 12, 15, 20, 25, 30, 35, 40]  # docs/rules.md §4.1, sets 1..11
STARS_ARMIES = {2: 2, 3: 4, 4: 7, 5: 10, 6: 13, 7: 17, 8: 21, 9: 25, 10: 30}  # docs/rules.md §6, by star total
CARD_STARS = (1, 1, 2, 2)  # docs/rules.md §6: stars by symbol (infantry, cavalry, artillery, wild)
DICE_RULE_KINDS = (MoveKind.REROLL, MoveKind.SIX, MoveKind.KEEP_ROLL)  # docs/rules.md §8


def expected_set_value(schedule: str, k: int, symbols: Iterable[int] | None = None) -> int:
    """Value of the k-th set of the game (1-based) under ``schedule`` (docs/rules.md §4.1, §6)."""
    if schedule == "escalating":
        return ESCALATING[k - 1] if k <= len(ESCALATING) else 15 + 5 * (k - 6)
    if schedule == "escalating_reset":
        return [4, 6, 8, 10, 12, 15][(k - 1) % 6]
    if schedule == "slow_escalation":
        return 4 + (k - 1)
    if schedule == "fixed_by_symbol":
        # three infantry 4, three cavalry 6, three artillery 8, one of each 10; a wild counts as
        # the symbol that makes the set worth most (the engine's documented choice).
        sym = list(symbols or ())
        wild = sym.count(3)
        base = [x for x in sym if x != 3]
        best = 0
        for fill in itertools.product(range(3), repeat=wild):
            full = sorted(base + list(fill))
            if full == [0, 1, 2]:
                best = max(best, 10)
            elif len(set(full)) == 1:
                best = max(best, (4, 6, 8)[full[0]])
        return best
    raise ValueError(schedule)


def is_set(symbols: Iterable[int]) -> bool:
    """docs/rules.md §2: three of a kind, one of each, or any two plus a wild."""
    sym = list(symbols)
    if len(sym) != 3:
        return False
    if 3 in sym:
        return True
    return len(set(sym)) in (1, 3)


def expected_income(game: Game, s: GameState, seat: int) -> int:
    """max(3, territories // 3) + bonuses of continents owned entirely (docs/rules.md §4.1)."""
    m = game.map
    owned = [int(s.owner[t]) == seat for t in range(m.num_territories)]
    total = max(3, sum(owned) // 3)
    for c, bonus in enumerate(m.continent_bonus):
        members = [t for t in range(m.num_territories) if int(m.territory_continent[t]) == c]
        if all(owned[t] for t in members):
            total += int(bonus)
    return total


def roll_losses(att_faces: list[int], def_faces: list[int]) -> tuple[int, int]:
    """(attacker losses, defender losses) of one roll, defender wins ties (docs/rules.md §4.2)."""
    a = sorted(att_faces, reverse=True)
    d = sorted(def_faces, reverse=True)
    al = dl = 0
    for i in range(min(len(a), len(d))):
        if a[i] > d[i]:
            dl += 1
        else:
            al += 1
    return al, dl


# ---------------------------------------------------------------- hand-built positions


def make_game(num_players: int = 4, **rules) -> Game:
    rules.setdefault("setup", "random")
    return Game(RulesConfig(num_players=num_players, **rules))


def tid(game: Game, name: str) -> int:
    return game.map.id_of(name)


def build(
    game: Game,
    owners: dict[str, int] | None = None,
    default_owner: int = 1,
    armies: dict[str, int] | None = None,
    default_armies: int = 1,
    player: int | None = None,
    phase: Phase = Phase.ATTACK,
    seed: int = 0,
    to_place: int = 0,
) -> GameState:
    """A position built on a ``new_game`` state: every territory owned by ``default_owner``
    except those in ``owners``; armies likewise. Alive flags follow ownership; hands are emptied
    (cards back to the draw pile); the player on turn is ``player`` (default: seat 0, or the
    first live seat) in ``phase`` at turn 1."""
    s = game.new_game(seed)
    s.owner[:] = default_owner
    s.armies[:] = default_armies
    for name, seat in (owners or {}).items():
        s.owner[tid(game, name)] = seat
    for name, n in (armies or {}).items():
        s.armies[tid(game, name)] = n
    for seat in range(game.num_players):
        s.alive[seat] = bool((s.owner == seat).any())
    if game.uses_cards:
        cards = s.deck + s.discard + [c for h in s.hands for c in h]
        s.deck = sorted(cards)
        s.discard = []
    s.hands = [[] for _ in range(game.num_players)]
    s.setup_left = [0] * len(s.setup_left)
    s.phase = phase
    if player is None:
        player = 0 if s.alive[0] else next(p for p in s.order if s.alive[p])
    s.player = player
    s.turn = 1
    s.to_place = to_place
    s.forced = s.bonus_used = s.conquered = s.resume_attack = s.trade_down = s.truncated = False
    s.att_src = s.att_dst = -1
    s.att_dice = s.last_dice = 0
    s.winner = -1
    s.elim_order = []
    if s.capitals:  # capitals=True (docs/rules.md §8): each seat's lowest territory (0 if it has none)
        s.capitals = [int(np.flatnonzero(s.owner == p)[0]) if s.alive[p] else 0 for p in range(game.num_players)]
    if s.eliminated_by:
        s.eliminated_by = [-1] * game.num_players
    assert game.invariant_violations(s) == [], game.invariant_violations(s)
    return s


def give_cards(s: GameState, seat: int, cards: Iterable[int]) -> None:
    """Move ``cards`` into ``seat``'s hand from wherever they are (keeps the 44 accounted for)."""
    for c in cards:
        for pile in [s.deck, s.discard] + s.hands:
            if c in pile:
                pile.remove(c)
                break
        else:
            raise AssertionError(f"card {c} is nowhere")
        s.hands[seat].append(c)


def force_dice(s: GameState, faces: list[int]) -> None:
    """The next dice the engine draws (attacker's first, then defender's, per roll)."""
    s.dice_buf = list(faces)
    s.dice_pos = 0


def begin_turn_of(game: Game, s: GameState, seat: int) -> None:
    """Start ``seat``'s turn the way the rules do: the previous seat (in turn order) ends its turn
    from the fortify phase without having conquered."""
    order = s.order
    live = [p for p in order if s.alive[p]]
    prev = live[(live.index(seat) - 1) % len(live)]
    s.player = prev
    s.phase = Phase.FORTIFY
    s.conquered = False
    s.forced = False
    s.to_place = 0
    game.apply(s, Move.end_turn())
    assert s.player == seat and s.phase == Phase.REINFORCE


# ---------------------------------------------------------------- independent checker


class RulesChecker:
    """Checks docs/rules.md §5 (and more) on each transition of one game, independently of the engine.

    Army ledger: ``armies on the board + armies still to place == armies granted - armies lost``,
    where grants (starting armies, income, set values, +2 bonuses) and losses (per roll) are
    recomputed here from the rules, not read from the engine.
    """

    def __init__(self, game: Game, s: GameState) -> None:
        self.game = game
        self.n = game.num_players
        self.cards = game.num_cards
        self.all_cards = list(range(game.num_cards))
        # Starting armies: placed on the board or still in the setup pools (docs/rules.md §3, §7);
        # the allied army's 2 armies a territory (§7) are granted when its territories are handed out.
        self.allied = game.army  # the allied army's owner id (-1 without it)
        self.granted = game.config.starting_armies * (game.num_seats if game.neutral >= 0 else self.n)
        self.granted += 2 * int((s.owner == game.army).sum()) if game.army >= 0 else 0
        self.received = 0  # armies the player on turn received this turn (the allied army gets half, §7)
        self.lost = 0
        self.incomes = 0
        self.trades = 0
        self.conquests = 0
        self.eliminations = 0
        self.steps = 0
        assert self.board(s) + self.pending(s) - (s.to_place if s.phase == Phase.REINFORCE else 0) == self.granted
        if s.phase == Phase.REINFORCE:  # random setup starts the first turn at once
            assert s.to_place == expected_income(game, s, s.player)
            self.granted += s.to_place
            self.received = s.to_place
        self.check_state(s)

    @staticmethod
    def board(s: GameState) -> int:
        return int(s.armies.sum())

    @staticmethod
    def pending(s: GameState) -> int:
        return int(sum(s.setup_left)) + (s.to_place if s.phase == Phase.REINFORCE else 0)

    def snapshot(self, s: GameState) -> dict:
        return {
            "owner": s.owner.tolist(),
            "armies": s.armies.tolist(),
            "hands": [h[:] for h in s.hands],
            "piles": len(s.deck) + len(s.discard),
            "discard": len(s.discard),
            "phase": s.phase,
            "player": s.player,
            "turn": s.turn,
            "to_place": s.to_place,
            "sets": s.sets_traded,
            "conquered": s.conquered,
            "alive": s.alive[:],
            "bonus_used": s.bonus_used,
            "actor": self.game.current_player(s),
            "att": (s.att_src, s.att_dst, s.att_dice),
            "roll_pending": s.roll_pending,
            "reroll_used": s.reroll_used,
            "six_used": s.six_used,
            "blitzing": s.blitzing,
            "commander": s.commander,
        }

    def check_state(self, s: GameState) -> None:
        g = self.game
        viol = g.invariant_violations(s)
        assert viol == [], viol
        # plain-Python checks (the boards are small; numpy calls would dominate)
        owner = s.owner.tolist()
        armies = s.armies.tolist()
        setup = s.phase in (Phase.CLAIM, Phase.SETUP_PLACE)
        for o, a in zip(owner, armies, strict=False):
            # every territory has one owner and >= 1 army; unclaimed (setup only) none (§5)
            if o < 0:
                assert setup and a == 0, "unclaimed territory after setup, or with armies"
            else:
                assert o < g.num_seats and a >= 1, f"owner {o} with {a} armies"
        # the cards are accounted for: draw pile + discards + hands (§5)
        allc = s.deck + s.discard + [c for h in s.hands for c in h]
        assert sorted(allc) == self.all_cards, "cards lost or duplicated"
        # eliminated players hold no territories and no cards (§5); the living own something
        holders = set(owner)
        for p in range(self.n):
            if not setup:
                assert s.alive[p] == (p in holders)
            if not s.alive[p]:
                assert s.hands[p] == []
        actor = g.current_player(s)
        if s.phase == Phase.GAME_OVER:
            assert actor == -1
            if s.truncated:
                assert s.winner == -1 and s.turn == g.config.turn_limit
            else:
                assert 0 <= s.winner < self.n and s.alive[s.winner]
                if sum(s.alive) > 1:  # only a secret mission or the capitals end a game with survivors (§8)
                    w = s.winner
                    assert (g.config.secret_missions and mission_complete(g, s, w)) or (
                        g.config.capitals and all(int(s.owner[c]) == w for c in s.capitals)
                    ), "a game won with other players alive, by neither a mission nor the capitals"
        else:
            # only a live player acts; never the neutral, never an eliminated player (§5, §7)
            assert 0 <= actor < self.n and s.alive[actor], f"seat {actor} may not act"
            if s.player == self.allied:  # the allied army's sub-turn: its commander decides (§7)
                assert s.commander >= 0 and (actor == s.commander or s.phase == Phase.DEFEND)
                assert s.phase in (Phase.REINFORCE, Phase.ATTACK, Phase.DEFEND, Phase.OCCUPY)
            else:
                assert s.alive[s.player] and s.commander == -1
        assert s.turn <= g.config.turn_limit
        if s.phase != Phase.REINFORCE:
            assert s.to_place == 0, f"armies to place outside the reinforce phase ({s.to_place})"
        # §5: armies on the board = armies placed - armies lost
        board = sum(armies)
        pending = sum(s.setup_left) + (s.to_place if s.phase == Phase.REINFORCE else 0)
        assert board + pending == self.granted - self.lost, (
            f"army ledger: board {board} + pending {pending} != granted {self.granted} - lost {self.lost}"
        )

    def after(self, prev: dict, move: Move | None, s: GameState) -> None:
        """Check the transition from snapshot ``prev`` by ``move`` (None: a codec sub-step) to ``s``."""
        g = self.game
        self.steps += 1
        p = prev["player"]
        if move is None:  # a codec selection: nothing of the game changes
            assert prev["owner"] == s.owner.tolist() and prev["armies"] == s.armies.tolist()
            assert (prev["phase"], prev["player"], prev["to_place"]) == (s.phase, s.player, s.to_place)
            assert prev["hands"] == s.hands
            self.check_state(s)
            return
        k = move.kind
        owner, armies = s.owner.tolist(), s.armies.tolist()
        d_board = sum(armies) - sum(prev["armies"])
        changed = {i for i, (x, y) in enumerate(zip(prev["armies"], armies, strict=False)) if x != y}
        owner_changed = {i for i, (x, y) in enumerate(zip(prev["owner"], owner, strict=False)) if x != y}
        rolls = (MoveKind.ATTACK, MoveKind.BLITZ, MoveKind.DEFEND) + DICE_RULE_KINDS
        if k not in (MoveKind.CLAIM,) + rolls:
            assert not owner_changed
        if k == MoveKind.DEFEND:
            d = int(prev["owner"][prev["att"][1]])
            assert prev["phase"] == Phase.DEFEND
            # the defender decides; for the allied army the player not attacking (§7)
            assert prev["actor"] == (d if d != self.allied else next(q for q in range(self.n) if q != p))
        elif p == self.allied:
            assert prev["actor"] == prev["commander"]
        else:
            assert prev["actor"] == p
        if k in DICE_RULE_KINDS:
            assert prev["roll_pending"], "a re-roll, six or keep without a waiting roll"
        if k in rolls:
            if k in (MoveKind.ATTACK, MoveKind.BLITZ) and s.phase == Phase.DEFEND:  # waits for the defender's choice
                assert g.config.defender_dice == "choose" and d_board == 0 and not changed
                assert s.att_src == move.src and s.att_dst == move.dst
                assert s.att_dice == (move.count if k == MoveKind.ATTACK else min(3, int(s.armies[move.src]) - 1))
                assert s.blitzing == (k == MoveKind.BLITZ)
            elif s.roll_pending:  # the expert dice rules: the roll waits for the attacker (§8)
                assert g.config.reroll_with_card or g.config.die_to_six
                assert k != MoveKind.BLITZ and k != MoveKind.KEEP_ROLL and d_board == 0 and not changed
                if k == MoveKind.SIX:
                    assert 6 in s.last_roll[: s.att_dice] and not prev["six_used"]
                if k == MoveKind.REROLL:
                    assert not prev["reroll_used"]
            else:
                src, dst = (move.src, move.dst) if k in (MoveKind.ATTACK, MoveKind.BLITZ) else prev["att"][:2]
                assert d_board < 0 and changed <= {src, dst} and owner_changed <= {dst}
                won = bool(owner_changed)
                if won:
                    self.conquests += 1
                    # the allied army's conquests earn no card (§7)
                    assert s.owner[dst] == p and s.conquered == (prev["conquered"] if p == self.allied else True)
                    assert s.armies[dst] >= s.last_dice >= 1  # occupation minimum (§4.2)
                    assert s.armies[src] >= 1
                elif k == MoveKind.BLITZ or (k == MoveKind.DEFEND and prev["blitzing"] and s.phase != Phase.DEFEND):
                    assert s.armies[src] == 1, "blitz stops only at a conquest or with one army left"
                if k == MoveKind.DEFEND and s.phase == Phase.DEFEND:  # the next round of a blitz
                    assert prev["blitzing"] and s.blitzing and not won and s.armies[src] >= 2
                    assert s.att_dice == min(3, int(s.armies[src]) - 1)
                if k in DICE_RULE_KINDS:  # a waiting roll settles: its size was fixed before
                    sep = s.last_roll.index(0)
                    att, dfd = prev["att"][2], len(s.last_roll) - sep - 1
                    assert sep == att and dfd in (1, 2)
                if k != MoveKind.BLITZ:
                    if k not in DICE_RULE_KINDS:
                        att = move.count if k == MoveKind.ATTACK else prev["att"][2]
                        dfd = move.count if k == MoveKind.DEFEND else min(2, int(prev["armies"][dst]))
                    assert -d_board == min(att, dfd), f"a roll of {att} vs {dfd} dice lost {-d_board} armies"
                    faces = s.last_roll
                    sep = faces.index(0)
                    assert len(faces[:sep]) == att and len(faces[sep + 1 :]) == dfd
                    assert all(1 <= f <= 6 for f in faces[:sep] + faces[sep + 1 :])
                    al, dl = roll_losses(faces[:sep], faces[sep + 1 :])
                    lost_src = int(prev["armies"][src]) - int(s.armies[src]) - (int(s.armies[dst]) if won else 0)
                    assert (lost_src, al + dl) == (al, -d_board)
                self.lost += -d_board
        elif k == MoveKind.TRADE and g.config.card_trade == "stars":
            gone = [c for c in prev["hands"][p] if c not in s.hands[p]]
            assert sum(CARD_STARS[g.card_symbol[c]] for c in gone) == move.count and not move.cards
            value = STARS_ARMIES[move.count]
            assert s.to_place - prev["to_place"] == value and d_board == 0 and not s.bonus_used
            assert len(s.hands[p]) == len(prev["hands"][p]) - len(gone)
            assert len(s.discard) == prev["discard"] + len(gone)
            self.granted += value
            self.received += value
            self.trades += 1
        elif k == MoveKind.TRADE:
            sym = [g.card_symbol[c] for c in move.cards]
            assert is_set(sym) and len(set(move.cards)) == 3
            value = expected_set_value(g.config.card_trade, prev["sets"] + 1, sym)
            assert s.sets_traded == prev["sets"] + 1
            assert s.to_place - prev["to_place"] == value, f"set value {s.to_place - prev['to_place']} != {value}"
            bonus = 2 if move.bonus >= 0 else 0
            owned = [c for c in move.cards if c < g.T and int(prev["owner"][c]) == p]
            if bonus:
                assert move.bonus in owned
                assert g.config.territory_bonus == "once_per_trade" or not prev["bonus_used"]
                assert changed == {move.bonus}
            else:
                assert not owned or (g.config.territory_bonus == "once_per_turn" and prev["bonus_used"])
            assert d_board == bonus
            assert sorted(s.hands[p]) == sorted(c for c in prev["hands"][p] if c not in move.cards)
            assert len(s.discard) == prev["discard"] + 3
            self.granted += value + bonus
            self.received += value + bonus
            self.trades += 1
        elif k == MoveKind.PLACE:
            assert d_board == move.count and changed == {move.src} and s.owner[move.src] == p
        elif k == MoveKind.PLACE_NEUTRAL:
            assert d_board == 1 and changed == {move.src} and s.owner[move.src] == g.neutral
        elif k == MoveKind.CLAIM:
            assert move.src in owner_changed and s.owner[move.src] == p
            if self.allied >= 0 and len(owner_changed) > 1:  # the last claim hands the rest to the allied army (§7)
                rest = owner_changed - {move.src}
                assert all(s.owner[t] == self.allied and s.armies[t] == 2 for t in rest)
                assert int((s.owner == 0).sum()) == int((s.owner == 1).sum()) == g.T // 3
                self.granted += 2 * len(rest)
                assert d_board == 1 + 2 * len(rest)
            else:
                assert d_board == len(owner_changed) and len(owner_changed) in ((1, 2) if g.neutral >= 0 else (1,))
        elif k == MoveKind.OCCUPY:
            src, dst = prev["att"][:2]
            assert d_board == 0 and changed <= {src, dst} and s.armies[src] >= 1
        elif k == MoveKind.FORTIFY:
            assert d_board == 0 and changed == {move.src, move.dst} and s.armies[move.src] >= 1
            assert s.owner[move.src] == p and s.owner[move.dst] == p
            if g.config.fortify == "adjacent":
                assert g.map.adjacency[move.src, move.dst]
        else:  # END_ATTACK, END_TURN
            assert d_board == 0 and not changed
            if k == MoveKind.END_ATTACK and self.allied >= 0:  # the allied army's sub-turn, or the fortify (§7)
                allied_left = bool((s.owner == self.allied).any())
                if p == self.allied:
                    assert s.phase == Phase.FORTIFY and s.player == prev["commander"] ^ 1 and s.commander == -1
                elif allied_left:
                    assert s.player == self.allied and s.commander == p ^ 1
                    assert s.to_place == self.received // 2 or (s.to_place == 0 and s.phase == Phase.ATTACK)
                    self.granted += self.received // 2
                else:
                    assert s.phase == Phase.FORTIFY and s.player == p
        # eliminations: only by a conquest, the conqueror takes the cards (§4.2)
        newly_dead = [q for q in range(self.n) if prev["alive"][q] and not s.alive[q]]
        if newly_dead:
            assert k in rolls and len(newly_dead) == 1
            self.eliminations += 1
        for q in range(self.n):
            if q in newly_dead:
                assert s.hands[q] == [] and q not in owner
            elif q != p:
                assert s.hands[q] == prev["hands"][q], "a hand changed off its owner's turn"
        if newly_dead and p == self.allied:  # the allied army takes no cards: they are discarded (§7)
            got = prev["hands"][newly_dead[0]]
            assert len(s.discard) == prev["discard"] + len(got)
        elif newly_dead:
            got = prev["hands"][newly_dead[0]]
            assert sorted(s.hands[p]) == sorted(prev["hands"][p] + got)
        # the end of a turn: one card after a conquest, none without (§4.4); next live player
        if k == MoveKind.FORTIFY and s.phase == Phase.GAME_OVER and s.winner >= 0:  # a fortify completed a mission (§8)
            assert g.config.secret_missions and s.turn == prev["turn"] and s.player == p
        elif k in (MoveKind.FORTIFY, MoveKind.END_TURN):
            assert s.turn == prev["turn"] + 1 or s.truncated
            drawn = 1 if (prev["conquered"] and g.uses_cards and prev["piles"] > 0) else 0
            assert len(s.hands[p]) == len(prev["hands"][p]) + drawn, "one card after a conquest, none without"
            if not s.truncated:
                live = [q for q in s.order if s.alive[q]]
                assert s.player == live[(live.index(p) + 1) % len(live)], "the turn passes to the next live player"
        else:
            assert s.turn == prev["turn"] or prev["turn"] == 0, "the turn passed without ending"
            if k not in (MoveKind.TRADE,) and not newly_dead and p < self.n:
                assert s.hands[p] == prev["hands"][p]
        # a new turn: income recomputed independently (§4.1); forced trade at 5+ cards
        if s.turn != prev["turn"] and s.phase != Phase.GAME_OVER:
            assert s.phase == Phase.REINFORCE and not s.bonus_used and not s.conquered
            inc = expected_income(g, s, s.player)
            assert s.to_place == inc, f"income {s.to_place} != {inc}"
            trades_sets = g.uses_cards and g.config.card_trade != "stars"  # no forced trade by stars (§6)
            assert s.forced == (trades_sets and len(s.hands[s.player]) >= 5)
            assert not s.six_used and not s.reroll_used
            self.granted += inc
            self.received = inc
            self.incomes += 1
        self.check_state(s)


def check_random_game(
    game: Game, seed: int, codec: ActionCodec | None = None, use_moves: bool = False, max_steps: int = 200_000
) -> tuple[GameState, RulesChecker]:
    """Play one random game (codec ids, or ``legal_moves`` when ``use_moves``) checking every step."""
    s = game.new_game(seed)
    chk = RulesChecker(game, s)
    rng = np.random.default_rng(seed + 77_777)
    codec = codec or ActionCodec(game)
    sel = Selection()
    for _ in range(max_steps):
        if s.phase == Phase.GAME_OVER:
            return s, chk
        prev = chk.snapshot(s)
        if use_moves:
            moves = game.legal_moves(s)
            assert moves, "no legal move in a live position"
            m = moves[int(rng.integers(len(moves)))]
            game.apply(s, m)
        else:
            legal = np.flatnonzero(codec.mask(s, sel))
            assert len(legal), "empty mask in a live position"
            m = codec.step(s, int(legal[rng.integers(len(legal))]), sel)
        chk.after(prev, m, s)
    raise AssertionError("game did not end")


# ---------------------------------------------------------------- the command line
def run_cli(*args: str) -> tuple[int, str, str]:
    """``risk-env ARGS`` through typer's test runner: ``(exit code, stdout, stderr)`` (skips without typer)."""
    import pytest

    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from risk_env.tools.cli import app

    res = CliRunner().invoke(app, [str(a) for a in args], prog_name="risk-env")
    return res.exit_code, res.stdout, res.stderr


# ---------------------------------------------------------------- agents
class StubbornAgent:
    """An agent that always chooses the first id its mask forbids (``helpers:StubbornAgent`` for the command line)."""

    name = "stubborn"

    def __init__(self, seed: int | None = None) -> None:
        self.chosen: list[int] = []

    def act(self, observation: object, info: dict) -> int:
        self.chosen.append(int(np.flatnonzero(info["action_mask"] == 0)[0]))
        return self.chosen[-1]


class FailingAgent:
    """An agent whose ``act`` raises, its message naming its cards (``helpers:FailingAgent`` for the command line)."""

    name = "failing"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: object, info: dict) -> int:
        raise ValueError("no trade in my hand: Alaska, Peru, Egypt")


class WordAgent:
    """An agent that answers a legal id as text (``"3"``), not an integer (``helpers:WordAgent``)."""

    name = "word"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: object, info: dict) -> str:
        return str(int(np.flatnonzero(info["action_mask"])[0]))


class LeakyAgent:
    """An agent that raises the library's own IllegalActionError, its message naming its legal ids and cards."""

    name = "leaky"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: object, info: dict) -> int:
        raise IllegalActionError(f"legal ids are {np.flatnonzero(info['action_mask']).tolist()} (trade Alaska+Peru)")


class ListAgent:
    """An agent that answers the list of its legal ids, not one of them."""

    name = "lister"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: object, info: dict) -> list:
        return list(np.flatnonzero(info["action_mask"]))
