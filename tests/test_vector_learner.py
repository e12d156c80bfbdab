"""The learner-seat batched env (risk_env.vector.learner): seats, opponents, episodes, self-play credit."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import pytest
import torch
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env import ConfigError, IllegalActionError, ResetNeededError
from risk_env.vector import VectorEnv
from risk_env.vector.agents import AggressivePolicy, RandomPolicy
from risk_env.vector.learner import FixedOpponents, LearnerEnv, seat_credit

SMALL: dict[str, Any] = dict(map="small", setup="random", turn_limit=30)


def _random_actions(mask: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """A random legal id per slot, ending a phase (the last id) 20 times less often than any other id: games
    see conquests and eliminations."""
    w = mask.float()
    w[:, -1] *= 0.05
    return torch.multinomial(w, 1, generator=gen)[:, 0]


def _gen(seed: int) -> torch.Generator:
    g = torch.Generator(device=DEVICE)
    g.manual_seed(seed)
    return g


class Recording:
    """A batched policy that plays randomly and records the (slot, seat) pairs it was asked to decide."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.inner = RandomPolicy(_gen(seed))
        self.asked: list[tuple[np.ndarray, np.ndarray]] = []
        self.env: LearnerEnv | None = None
        self.index = -1
        self.wrong = 0

    def __call__(self, state: Any, mask: torch.Tensor, active: torch.Tensor | None = None) -> torch.Tensor:
        assert active is not None
        rows = active.nonzero()[:, 0]
        self.asked.append((rows.cpu().numpy(), state.player[rows].cpu().numpy()))
        if self.env is not None:  # the seat to act in each asked slot is one this policy plays
            self.wrong += int((self.env.seating[rows, state.player[rows]] != self.index).sum())
        return self.inner(state, mask, active)


def test_a_learner_acts_in_every_slot_and_the_seat_rotates() -> None:
    env = LearnerEnv(6, device=DEVICE, seed=1, opponents="aggressive", num_players=3, **SMALL)
    out = env.reset()
    assert env.learner_seat.tolist() == [0, 1, 2, 0, 1, 2]
    assert env.seating.tolist() == [[-1, 0, 0], [0, -1, 0], [0, 0, -1]] * 2
    gen = _gen(0)
    learners_seen: dict[int, set[int]] = defaultdict(set)
    for _ in range(200):
        assert bool((out.current_player == env.learner_seat).all())
        assert bool(env.learners.gather(1, out.current_player[:, None]).all())
        assert bool(out.action_mask.any(1).all())
        for b, p in enumerate(env.learner_seat.tolist()):
            learners_seen[b].add(p)
        # slot b's g-th game has its learner in seat (b + g) % n
        assert env.learner_seat.tolist() == ((torch.arange(6, device=DEVICE) + env.games_started - 1) % 3).tolist()
        out = env.step(_random_actions(out.action_mask, gen))
    assert int(env.games_started.sum()) > 6 + 12
    assert sum(len(v) == 3 for v in learners_seen.values()) >= 4


def test_episodes_of_one_learner_add_up() -> None:
    """Every learner episode sums to +1 (won), -1 (lost, eliminated or another won) or 0 (turn limit), in the
    call its end is reported; a learner eliminated while the game goes on gets a new game at once; the
    opponent assignment is told each episode's score."""
    scores: list[float] = []

    class Told(FixedOpponents):
        def record(self, seating: torch.Tensor, score: torch.Tensor) -> None:
            assert bool((seating == -1).sum(1).eq(1).all())
            scores.extend(score.tolist())

    rules = dict(SMALL, turn_limit=16)  # short games: some reach the turn limit
    env = LearnerEnv(128, device=DEVICE, seed=2, num_players=3, final_observation=True, **rules)
    env.assignment = Told(["random", "aggressive"], env.game, env.generator)
    out = env.reset()
    gen = _gen(1)
    strong = AggressivePolicy(env.game)  # the learner's moves in the even slots (against random opponents)
    even = torch.arange(128, device=DEVICE) % 2 == 0
    total = torch.zeros(128, device=DEVICE)
    episodes = {"won": 0, "lost": 0, "truncated": 0, "out early": 0}
    terr = env.game.obs_offsets["territories"]
    for _ in range(90):
        seat = env.learner_seat.clone()
        assert env.venv.state is not None
        a = torch.where(even, strong(env.venv.state, out.action_mask), _random_actions(out.action_mask, gen))
        out = env.step(a)
        total += out.reward
        assert bool((out.reward == out.rewards.gather(1, seat[:, None])[:, 0]).all())
        done = out.terminated | out.truncated
        assert bool((done <= out.autoreset).all())  # a learner episode's end always brings a new game
        assert out.final_observation is not None
        for b in done.nonzero()[:, 0].tolist():
            r = float(total[b])
            if bool(out.truncated[b]):
                assert r == 0.0
                episodes["truncated"] += 1
            elif r == 1.0:
                episodes["won"] += 1
            else:
                assert r == -1.0
                episodes["lost"] += 1
                lost_alone = not bool((out.rewards[b] > 0).any())  # nobody won in this call: eliminated early
                episodes["out early"] += int(lost_alone)
                # the final observation is the learner's: it owns no territory any more
                assert float(out.final_observation[b, terr]) == 0.0
            total[b] = 0.0
        assert not bool(out.final_observation[~done].any())
    assert all(v > 0 for v in episodes.values()), episodes
    finished = episodes["won"] + episodes["lost"] + episodes["truncated"]
    assert len(scores) == finished
    assert sorted(scores) == sorted([1.0] * episodes["won"] + [0.0] * episodes["lost"] + [0.5] * episodes["truncated"])


def test_opponent_tuples_play_their_own_seats() -> None:
    """A tuple entry names the opponent seats in turn from the learner; each policy is asked only for
    the slots where a seat it plays is to act."""
    a, b, c = Recording("a", 1), Recording("b", 2), Recording("c", 3)
    env = LearnerEnv(8, device=DEVICE, seed=3, opponents=[(a, b, c), "random"], num_players=4, **SMALL)
    out = env.reset()
    names = env.assignment.names if env.assignment is not None else []
    assert names == ["a", "b", "c", "random"]
    seat = env.learner_seat.tolist()
    for slot in range(8):
        row = env.seating[slot].tolist()
        if slot % 2 == 0:
            assert [row[(seat[slot] + k) % 4] for k in range(4)] == [-1, 0, 1, 2]
        else:
            assert sorted(row) == [-1, 3, 3, 3]
    for k, pol in enumerate((a, b, c)):
        pol.env, pol.index = env, k
    gen = _gen(4)
    for _ in range(150):
        out = env.step(_random_actions(out.action_mask, gen))
    assert int(env.games_started.sum()) > 12
    for pol in (a, b, c):
        assert pol.asked and pol.wrong == 0
        assert all((rows % 2 == 0).all() for rows, _ in pol.asked)  # the tuple is the even slots' entry


def test_opponents_alone_decide_between_learner_calls() -> None:
    """With a fixed learner seat, the policies are asked for every other seat and never for the learner's."""
    rec = Recording("r", 5)
    env = LearnerEnv(8, device=DEVICE, seed=4, opponents=rec, learner_seat=1, num_players=3, **SMALL)
    out = env.reset()
    gen = _gen(2)
    asked = 0
    for _ in range(100):
        out = env.step(_random_actions(out.action_mask, gen))
        for _rows, players in rec.asked:
            assert not (players == 1).any()
            asked += len(players)
        rec.asked.clear()
    assert asked > 800


def test_self_play_is_one_engine_step_per_call() -> None:
    """Self-play: every seat is a learner, so each call is one step of the plain batched env (same seed, same
    actions: the same observations, masks, seats and rewards)."""
    rules: dict[str, Any] = dict(num_players=3, **SMALL)
    env = LearnerEnv(32, device=DEVICE, seed=7, self_play=True, **rules)
    ref = VectorEnv(32, device=DEVICE, seed=7, **rules)
    out, want = env.reset(), ref.reset()
    gen = _gen(3)
    ended = 0
    for _ in range(300):
        assert torch.equal(out.observation, want.observation) and torch.equal(out.action_mask, want.action_mask)
        assert torch.equal(out.current_player, want.current_player)
        a = _random_actions(out.action_mask, gen)
        out, want = env.step(a), ref.step(a)
        assert torch.equal(out.rewards, want.rewards) and torch.equal(out.autoreset, want.autoreset)
        assert torch.equal(out.seat_terminated, want.rewards != 0)
        ended += int(out.seat_terminated.sum())
    assert bool(env.learners.all()) and ended > 20


def test_seat_credit_by_hand() -> None:
    """Two seats alternating in one slot; seat 1 is eliminated in call 3 (its -1 arrives there), seat 0 wins
    in call 4; a new game starts and seat 1 decides at call 5."""
    seat = torch.tensor([[0], [1], [0], [1], [0], [1]])
    rewards = torch.zeros(6, 1, 2)
    ended = torch.zeros(6, 1, 2, dtype=torch.bool)
    rewards[1, 0, 0] = 0.25  # shaping-like reward to seat 0 in the call where seat 1 decided
    rewards[3, 0, 1] = -1.0
    ended[3, 0, 1] = True
    rewards[4, 0, 0] = 1.0
    ended[4, 0, 0] = True
    rewards[5, 0, 1] = 0.5  # the next game: belongs to seat 1's decision at call 5
    r, d, nxt = seat_credit(seat, rewards, ended)
    assert r[:, 0].tolist() == [0.25, 0.0, 0.0, -1.0, 1.0, 0.5]
    assert d[:, 0].tolist() == [False, False, False, True, True, False]
    assert nxt[:, 0].tolist()[:3] == [2, 3, 4] and int(nxt[5, 0]) == 6


def test_self_play_credit_sums_to_each_seats_game_result() -> None:
    """Over whole games, a seat's credited rewards (seat_credit) sum to its result: +1 the winner, -1 each
    eliminated seat, 0 at the turn limit."""
    n, B, L = 3, 32, 400
    env = LearnerEnv(B, device=DEVICE, seed=11, self_play=True, num_players=n, **SMALL)
    out = env.reset()
    gen = _gen(5)
    seats, rews, ends = [], [], []
    for _ in range(L):
        seats.append(out.current_player)
        a = _random_actions(out.action_mask, gen)
        out = env.step(a)
        rews.append(out.rewards)
        ends.append(out.seat_terminated | out.seat_truncated)
    seat, rewards, ended = torch.stack(seats), torch.stack(rews), torch.stack(ends)
    r, d, _ = seat_credit(seat, rewards, ended)
    # the credited rewards of a seat's episode: its decisions up to the one whose credit is done
    checked = 0
    for b in range(B):
        for p in range(n):
            calls = (seat[:, b] == p).nonzero()[:, 0].tolist()
            total = 0.0
            for t in calls:
                total += float(r[t, b])
                if bool(d[t, b]):
                    # its episode ended: the rewards of those calls to seat p add to the same total
                    assert total in (1.0, -1.0, 0.0)
                    checked += 1
                    total = 0.0
    assert checked > 30


def test_self_play_shaping_telescopes_per_seat() -> None:
    """With gamma = 1 a seat's shaping over one episode (its own decisions) sums to -shaping * phi at its
    first decision."""
    kw: dict[str, Any] = dict(device=DEVICE, seed=12, self_play=True, num_players=3, **SMALL)
    plain, shaped = LearnerEnv(24, **kw), LearnerEnv(24, shaping=0.5, **kw)
    o1, o2 = plain.reset(), shaped.reset()
    gen = _gen(6)
    first_phi: dict[tuple[int, int], float] = {}
    total: dict[tuple[int, int], float] = defaultdict(float)
    checked = 0
    for _ in range(300):
        for b, p in enumerate(o2.current_player.tolist()):
            first_phi.setdefault((b, p), float(shaped.potential[b, p]))
        a = _random_actions(o1.action_mask, gen)
        o1, o2 = plain.step(a), shaped.step(a)
        assert torch.equal(o1.observation, o2.observation)
        extra = (o2.rewards - o1.rewards).tolist()
        ended = (o2.seat_terminated | o2.seat_truncated).tolist()
        for b in range(24):
            for p in range(3):
                total[(b, p)] += extra[b][p]
                if ended[b][p]:
                    # (a seat out before it ever decided gets no shaping)
                    assert total[(b, p)] == pytest.approx(-0.5 * first_phi.pop((b, p), 0.0), abs=1e-5)
                    total[(b, p)] = 0.0
                    checked += 1
            if bool(o2.autoreset[b]):
                for p in range(3):
                    first_phi.pop((b, p), None)
                    total[(b, p)] = 0.0
    assert checked > 20


def test_bad_input_is_refused_and_changes_nothing() -> None:
    env = LearnerEnv(4, device=DEVICE, seed=0, opponents="random", num_players=2, **SMALL)
    with pytest.raises(ResetNeededError, match="reset"):
        env.step(torch.zeros(4, dtype=torch.int64))
    with pytest.raises(ResetNeededError, match="reset"):
        env.reset_slots(torch.ones(4, dtype=torch.bool, device=DEVICE))
    out = env.reset()
    assert env.venv.state is not None
    before = env.venv.state.clone()
    bad = out.action_mask.long().argmin(1)  # an illegal id in every slot
    with pytest.raises(IllegalActionError, match="illegal in slot 0"):
        env.step(bad)
    with pytest.raises(IllegalActionError, match="shape"):
        env.step(torch.zeros(3, dtype=torch.int64))
    with pytest.raises(IllegalActionError, match="shape"):
        env.step(torch.zeros(4))
    with pytest.raises(ConfigError, match="active"):
        env.step(out.action_mask.long().argmax(1), active=torch.ones(4, device=DEVICE))
    with pytest.raises(ConfigError, match="slots"):
        env.reset_slots(torch.ones(3, dtype=torch.bool, device=DEVICE))
    after = env.venv.state
    assert all(torch.equal(v, getattr(after, k)) for k, v in before.fields().items())
    for kwargs, what in [
        (dict(opponents="nobody"), "nobody"),
        (dict(opponents=[]), "empty"),
        (dict(opponents=[("random", "random")]), "opponent seats"),
        (dict(opponents=[3]), "policy"),
        (dict(learner_seat=2), "learner_seat"),
        (dict(observation="pixels"), "observation"),
        (dict(shaping=-1.0), "shaping"),
        (dict(shaping_gamma=0.0), "shaping_gamma"),
        (dict(max_opponent_steps=0), "max_opponent_steps"),
        (dict(self_play="yes"), "self_play must be True or False"),
        (dict(final_observation="no"), "final_observation must be True or False"),
    ]:
        with pytest.raises(ConfigError, match=what):
            LearnerEnv(2, device=DEVICE, num_players=2, **kwargs)  # type: ignore[arg-type]


def test_self_play_refuses_opponents_and_a_learner_seat() -> None:
    # (under self-play both were ignored, even opponents="nope")
    kw: dict[str, Any] = dict(device=DEVICE, self_play=True, num_players=2, **SMALL)
    for given, text in [
        (dict(opponents="nope", learner_seat=1), "opponents='nope', learner_seat=1"),
        (dict(opponents="aggressive"), "opponents='aggressive'"),
        (dict(learner_seat=0), "learner_seat=0"),
    ]:
        with pytest.raises(ConfigError) as info:
            LearnerEnv(4, **kw, **given)
        assert str(info.value) == (
            f"{text}: under self_play=True every seat of every game is a learner, so opponents and learner_seat mean "
            "nothing; leave them out, or set self_play=False"
        )
    env = LearnerEnv(4, **kw, opponents="random", learner_seat=None)  # (the defaults, given)
    assert env.assignment is None and bool(env.reset().action_mask.any(1).all())


def test_a_numpy_integer_learner_seat_is_a_seat() -> None:
    # (np.int64(1) was refused as "must be None (rotate) or a seat in 0..1, got np.int64(1)")
    for seat in (np.int64(1), np.int32(1), np.uint8(1)):
        env = LearnerEnv(4, device=DEVICE, learner_seat=seat, num_players=2, **SMALL)
        assert env.fixed_seat == 1 and type(env.fixed_seat) is int
        out = env.reset(seed=0)
        assert out.current_player.tolist() == [1] * 4
    for bad in (np.int64(2), np.bool_(True), 1.0):
        with pytest.raises(ConfigError) as info:
            LearnerEnv(4, device=DEVICE, learner_seat=bad, num_players=2, **SMALL)  # type: ignore[arg-type]
        assert str(info.value) == f"learner_seat must be None (rotate) or a seat in 0..1, got {bad!r}"


def test_an_opponent_that_cannot_take_the_policy_call_is_refused_when_the_env_is_made() -> None:
    # (it passed and reset() failed with "TypeError: <lambda>() takes 2 positional arguments but 3 were given")
    def two(obs, mask):  # type: ignore[no-untyped-def]
        return mask.float().argmax(1)

    class Keyword:
        def __call__(self, state, mask, *, active=None):  # type: ignore[no-untyped-def]
            return mask.float().argmax(1)

    for bad, name, sig in [(two, "two", "(obs, mask)"), (Keyword(), "Keyword", "(state, mask, *, active=None)")]:
        # alone, in a list, in a tuple of opponent seats (3 players)
        for opponents, n in ((bad, 2), (["random", bad], 2), ([("random", bad)], 3)):
            with pytest.raises(ConfigError) as info:
                LearnerEnv(4, device=DEVICE, opponents=opponents, num_players=n, **SMALL)
            assert str(info.value) == (
                f"an opponent policy is called as policy(state, mask, active) -> ids (three positional arguments), but "
                f"{name} takes {sig}; a callable (obs, mask) -> ids is VectorSB3Env's opponent= form"
            )

    def first(state, mask, active=None, *rest):  # type: ignore[no-untyped-def]
        return mask.float().argmax(1)

    # a callable whose signature cannot be read (a builtin, a C callable) is taken as it is
    unreadable = type("Unreadable", (), {"__call__": lambda self, *a: first(*a), "__signature__": property(_raise)})()
    for fine in (first, lambda *a: first(*a), unreadable):
        env = LearnerEnv(4, device=DEVICE, opponents=fine, num_players=2, **SMALL)
        out = env.reset(seed=0)
        env.step(out.action_mask.float().argmax(1))


def _raise(self: Any) -> None:
    raise ValueError("no signature found")


def test_inactive_slots_are_left_as_they_are() -> None:
    env = LearnerEnv(8, device=DEVICE, seed=9, opponents="aggressive", num_players=2, **SMALL)
    out = env.reset()
    gen = _gen(8)
    active = torch.arange(8, device=DEVICE) % 2 == 0
    assert env.venv.state is not None
    steps0 = env.venv.state.steps.clone()
    for _ in range(30):
        before = {k: v[~active].clone() for k, v in env.venv.state.fields().items()}
        obs_before, mask_before = out.observation[~active].clone(), out.action_mask[~active].clone()
        out = env.step(_random_actions(out.action_mask, gen), active=active)
        assert all(torch.equal(v, getattr(env.venv.state, k)[~active]) for k, v in before.items())
        assert torch.equal(out.observation[~active], obs_before) and torch.equal(out.action_mask[~active], mask_before)
        assert not out.reward[~active].any() and not out.autoreset[~active].any()
    assert bool((env.venv.state.steps > steps0)[active].all())  # the active slots played on
    with pytest.raises(ConfigError, match="active"):
        env.step(torch.zeros(8, dtype=torch.int64), active=torch.ones(8, device=DEVICE))


def test_a_truncation_with_rank_rewards_is_still_a_truncation() -> None:
    """Under truncation_reward="rank" the turn limit truncates the learner's episode, as under "draw" (and in the
    AEC env): the same games (the rewards do not change the play) end the same episodes the same way; only the
    truncations' rewards differ, and the opponent assignment scores them 0.5 (the turn limit), not a win or loss."""
    scores: dict[str, list[float]] = {"draw": [], "rank": []}

    def told(key: str) -> type[FixedOpponents]:
        class Told(FixedOpponents):
            def record(self, seating: torch.Tensor, score: torch.Tensor) -> None:
                scores[key].extend(score.tolist())

        return Told

    rules: dict[str, Any] = dict(SMALL, num_players=3, turn_limit=4)  # short games: most end at the turn limit
    envs = {}
    for key in scores:
        env = LearnerEnv(64, device=DEVICE, seed=5, truncation_reward=key, **rules)
        env.assignment = told(key)("random", env.game, env.generator)
        envs[key] = env
    outs = {k: e.reset() for k, e in envs.items()}
    gen = _gen(7)
    rank_scored = 0
    for _ in range(120):
        a = _random_actions(outs["draw"].action_mask, gen)
        outs = {k: e.step(a) for k, e in envs.items()}
        d, r = outs["draw"], outs["rank"]
        assert torch.equal(d.observation, r.observation)
        assert torch.equal(d.terminated, r.terminated) and torch.equal(d.truncated, r.truncated)
        assert torch.equal(d.seat_terminated, r.seat_terminated) and torch.equal(d.seat_truncated, r.seat_truncated)
        assert torch.equal(d.reward[d.terminated], r.reward[r.terminated]) and not d.reward[d.truncated].any()
        rank_scored += int((r.reward[r.truncated] != 0).sum())
    assert rank_scored > 20
    assert len(scores["draw"]) > 40 and scores["rank"] == scores["draw"]


def test_reset_slots_starts_new_games_there_alone() -> None:
    """reset_slots: new games, advanced to their learner's first decision, in the chosen slots; the others keep
    their games, observations and masks; the dropped episodes bring no reward and are not reported."""
    told: list[int] = []

    class Told(FixedOpponents):
        def record(self, seating: torch.Tensor, score: torch.Tensor) -> None:
            told.append(int(seating.shape[0]))

    env = LearnerEnv(8, device=DEVICE, seed=6, num_players=3, final_observation=True, **SMALL)
    env.assignment = Told("aggressive", env.game, env.generator)
    out = env.reset()
    gen = _gen(9)
    for _ in range(40):
        out = env.step(_random_actions(out.action_mask, gen))
    told.clear()
    s = env.venv.state
    assert s is not None
    chosen = torch.tensor([True, False, True, False, False, False, False, True], device=DEVICE)
    keep = {k: v[~chosen].clone() for k, v in s.fields().items()}
    owners = s.owner[chosen].clone()
    obs, mask = out.observation[~chosen].clone(), out.action_mask[~chosen].clone()
    started = env.games_started.clone()
    new = env.reset_slots(chosen)
    assert new is env.last and torch.equal(new.autoreset, chosen)
    assert not new.reward.any() and not new.rewards.any() and not (new.terminated | new.truncated).any()
    assert all(torch.equal(v, getattr(s, k)[~chosen]) for k, v in keep.items())
    assert torch.equal(new.observation[~chosen], obs) and torch.equal(new.action_mask[~chosen], mask)
    assert torch.equal(env.games_started, started + chosen.long())
    assert bool((new.current_player == env.learner_seat).all())  # a learner decides in every slot
    assert bool((s.turn[chosen] <= 3).all())  # new games, in their first round (turns count each player's)
    assert bool((s.owner[chosen] != owners).any(1).all())
    assert told == []
    ref = env.venv.observe(env.learner_seat)  # the outputs are the new games' learner observations
    assert isinstance(ref, torch.Tensor) and torch.equal(new.observation, ref)
    for _ in range(20):  # and they play on
        new = env.step(_random_actions(new.action_mask, gen))


@pytest.mark.parametrize("base", [object, RandomPolicy])
def test_an_outside_opponent_sees_what_its_seat_may_know_and_writes_nothing(base: type) -> None:
    """A policy that is not one of the package's gets BatchState.known_to of the seat to act and a copy of the mask
    (it was handed the live state: every seat's mission and hand); so does a subclass of one of the package's policies
    defined outside it (which was handed the live state as the package's own are)."""

    class Peek(base):  # type: ignore[valid-type,misc]
        name = "peek"

        def __init__(self) -> None:
            self.g = torch.Generator(device=DEVICE).manual_seed(0)
            self.calls = 0
            self.leaks = 0

        def __call__(self, state, mask, active=None):  # type: ignore[no-untyped-def]
            seat = env.venv.state.player  # (the test reads the live state; the policy sees only its argument)
            live = env.venv.state
            own = state.missions.gather(1, seat[:, None])[:, 0]
            others = (state.missions >= 0).sum(1) - (own >= 0).long()
            self.leaks += int((others[active] > 0).sum())
            assert own[active].equal(live.missions.gather(1, seat[:, None])[:, 0][active])  # its own mission
            mine = state.card_loc == seat[:, None]
            assert mine[active].equal((live.card_loc == seat[:, None])[active])  # its own cards
            self.calls += 1
            ids = RandomPolicy(self.g)(state, mask, active)
            state.owner.fill_(0)  # what it writes reaches nothing
            mask.fill_(True)
            return ids

    peek = Peek()
    env = LearnerEnv(8, seed=0, opponents=peek, preset="secret_missions", num_players=3, learner_seat=0, device=DEVICE)
    out = env.reset()
    g = torch.Generator(device=DEVICE).manual_seed(1)
    hands = 0
    for _ in range(120):
        out = env.step(RandomPolicy(g)(env.venv.state, out.action_mask))
        live = env.venv.state
        assert int(live.owner.max()) > 0
        hands += int(((live.card_loc == 1) | (live.card_loc == 2)).sum())
    assert peek.calls > 100 and hands > 50 and peek.leaks == 0


def test_the_package_policies_choose_the_same_on_the_seats_view() -> None:
    """The learner env hands its own policies the live state (SEAT_SAFE_POLICIES): they choose on it what they
    choose on what their seat may know (BatchState.known_to), in positions with cards in other hands."""
    from risk_env.train.graph_net import GraphNet
    from risk_env.vector.agents import make_policy
    from risk_env.vector.learner import SEAT_SAFE_POLICIES
    from risk_env.vector.network import NetworkPolicy

    venv = VectorEnv(64, device=DEVICE, seed=3, preset="fast", num_players=4)
    game = venv.game
    torch.manual_seed(0)
    net = GraphNet(20, 73, game.num_actions - game.T, hidden=8, rounds=1).to(DEVICE)
    policies = [make_policy(name, game) for name in ("aggressive", "balanced", "continent")]
    policies.append(NetworkPolicy(game, net, "graph", True))
    assert all(isinstance(p, SEAT_SAFE_POLICIES) for p in policies)
    g = torch.Generator(device=DEVICE).manual_seed(2)
    out = venv.reset()
    compared = with_cards = 0
    for step in range(600):
        s, mask, cur = venv.state, out.action_mask, out.current_player
        if step % 5 == 0:
            view = s.known_to(cur)
            for p in policies:
                assert p(s, mask, None).equal(p(view, mask.clone(), None)), (p.name, step)
            compared += 1
            with_cards += int(((s.card_loc >= 0) & (s.card_loc != cur[:, None])).any(1).sum())
        out = venv.step(RandomPolicy(g)(s, mask))
    assert compared == 120 and with_cards > 1000


def test_an_observation_callable_sees_the_seats_observation_and_a_copy_of_the_mask() -> None:
    """VectorSB3Env's (observation, mask) form is played by ObservationPolicy, one of the seat-safe policies (the
    live state, no BatchState.known_to per call): its callable gets the flat observation and a copy of the mask."""
    from risk_env.vector.learner import SEAT_SAFE_POLICIES, ObservationPolicy

    venv = VectorEnv(4, device=DEVICE, seed=1, preset="fast", map="small", num_players=2)
    out = venv.reset()
    seen: list[tuple[int, ...]] = []

    def spoil(observation: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        seen.append(tuple(observation.shape))
        ids = mask.long().argmax(1)
        mask.fill_(False)
        return ids

    policy = ObservationPolicy(spoil, venv.game)
    assert isinstance(policy, SEAT_SAFE_POLICIES) and policy.name == "spoil"
    mask = out.action_mask.clone()
    ids = policy(venv.state, out.action_mask)
    assert out.action_mask.equal(mask) and bool(mask.gather(1, ids[:, None]).all())
    assert seen == [tuple(venv.game.observe(venv.state).shape)]


def test_a_pretrained_agent_or_a_policy_file_by_name_is_an_opponent(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``LearnerEnv(opponents="ppo-4p")`` was refused ("no batched policy named 'ppo-4p'") though batched
    evaluation plays it: opponents, league baselines and entrants read one spec (``risk_env.vector.specs``). The
    named network plays exactly as the frozen network built by hand; a file by its path; rules it does not fit are
    refused."""
    from risk_env.errors import AgentRulesError
    from risk_env.train.graph_net import GraphNet, save_policy
    from risk_env.vector.league import League
    from risk_env.vector.network import NetworkPolicy
    from risk_env.vector.specs import batched_policy

    by_name = LearnerEnv(8, device=DEVICE, seed=5, opponents=["ppo-4p", ("balanced", "ppo-4p", "random")], preset="fast")
    frozen = batched_policy("ppo-4p", VectorEnv(1, device=DEVICE, preset="fast").game, _gen(0))
    assert isinstance(frozen, NetworkPolicy)
    built = LearnerEnv(8, device=DEVICE, seed=5, opponents=[frozen, ("balanced", frozen, "random")], preset="fast")
    assert by_name.assignment is not None and by_name.assignment.names == ["ppo-4p", "balanced", "random"]
    a, b = by_name.reset(), built.reset()
    gen = _gen(11)
    for _ in range(60):
        assert torch.equal(a.observation, b.observation) and torch.equal(a.action_mask, b.action_mask)
        ids = torch.multinomial(a.action_mask.float(), 1, generator=gen).squeeze(1)
        a, b = by_name.step(ids), built.step(ids)
        assert torch.equal(a.reward, b.reward) and torch.equal(a.current_player, b.current_player)
    path = tmp_path / "net.pt"
    save_policy(path, GraphNet(20, 73, 28, hidden=8, rounds=1))
    env = LearnerEnv(4, device=DEVICE, seed=0, opponents=str(path), preset="fast", num_players=2)
    assert env.assignment is not None and env.assignment.names == [str(path)] and env.reset().action_mask.shape == (4, 70)
    league = League(env.game, env.generator, ["balanced", "ppo-4p"])
    assert league.names[:2] == ["balanced", "ppo-4p"] and isinstance(league.policies[1], NetworkPolicy)
    for bad in ("balanced", env.generator, None):
        with pytest.raises(ConfigError, match="^baselines must be a list of specs or batched policies"):
            League(env.game, env.generator, bad)  # type: ignore[arg-type]
    with pytest.raises(AgentRulesError, match="^agent 'ppo-2p-0.1' cannot play these rules: this graph policy scores 28 "):
        LearnerEnv(4, device=DEVICE, seed=0, opponents="ppo-2p-0.1", preset="expert", num_players=2)
    with pytest.raises(
        ConfigError,
        match="^the batched engine cannot play 'nope': no batched policy, pretrained agent or model file has that name",
    ) as info:
        LearnerEnv(4, device=DEVICE, seed=0, opponents="nope")
    assert "'continent', a pretrained agent (ppo-2p, ppo-3p, ppo-4p, ppo-5p, ppo-6p, ppo-2p-0.1, " in str(info.value)
    from pathlib import Path

    env = LearnerEnv(4, device=DEVICE, seed=0, opponents=[Path(path), (" Balanced", path)], preset="fast", num_players=3)
    assert env.assignment is not None and env.assignment.names == [str(path), "balanced"]  # (a path, a name in any case)
    assert len(env.assignment.policies) == 2  # (the file named twice is one policy)
    league = League(env.game, env.generator, [Path(path), "Balanced"])
    assert league.names[:2] == [str(path), "balanced"]
    with pytest.raises(ConfigError, match="the league already has an opponent named 'balanced'"):
        League(env.game, env.generator, ["balanced", " BALANCED"])
    # the name of the latest learner is reserved up front (set_latest collided with it in the middle of a run)
    from risk_env.vector.agents import make_policy

    named = make_policy("balanced", env.game, env.generator)
    named.name = "latest"
    for bad in (named, " Latest"):
        with pytest.raises(ConfigError, match="^a league baseline may not be named 'latest': the league names the latest"):
            League(env.game, env.generator, ["random", bad])
    league = League(env.game, env.generator, ["random"])
    with pytest.raises(ConfigError, match="^a snapshot may not be named 'latest'"):
        league.add_snapshot(make_policy("balanced", env.game, env.generator), name="latest")
    assert league.names == ["random"] and league.snapshots == []
    trio = LearnerEnv(4, device=DEVICE, seed=0, opponents=("balanced", "random"), preset="fast", num_players=3)
    assert trio.assignment is not None and trio.assignment.names == ["balanced", "random"]
    seating = trio.assignment.assign(torch.arange(4, device=DEVICE), torch.zeros(4, dtype=torch.int64, device=DEVICE), 3)
    assert seating.tolist() == [[-1, 0, 1]] * 4  # (a tuple alone is one line-up for every slot, not a list of two)
    with pytest.raises(ConfigError, match=r"^opponents must be a spec, a batched policy, or a list of those; got b'random'"):
        LearnerEnv(4, device=DEVICE, seed=0, opponents=b"random")


def test_reset_reports_no_episode_end_of_games_that_ended_before_a_learner_decision() -> None:
    # (games over within one turn end before many learners decide: reset() reported their ends, read from seat 0,
    # as the learner's; reset_slots() cleared them already)
    env = LearnerEnv(64, device=DEVICE, seed=0, map="small", setup="random", num_players=3, turn_limit=1)
    out = env.reset()
    assert env.games_started.sum() > 64  # (some slots played more than one game before their learner's decision)
    for flags in (out.terminated, out.truncated, out.autoreset, out.seat_terminated, out.seat_truncated):
        assert not flags.any()
    assert not out.reward.any() and not out.rewards.any()


def _played(default: torch.dtype, observation: str, opponents: Any) -> list[torch.Tensor]:
    """Every observation and reward of 120 learner steps of a 3-player learner-seat env (and of a VectorEnv stepping a
    fifth of its slots), with torch's default dtype set to ``default`` for the run."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(default)
    try:
        from risk_env.vector.learner import LearnerEnv

        gen = torch.Generator().manual_seed(0)
        env = LearnerEnv(6, seed=0, opponents=opponents, preset="fast", num_players=3, observation=observation)
        out = env.reset(seed=1)
        seen: list[torch.Tensor] = []
        for _ in range(120):
            out = env.step(torch.multinomial(out.action_mask.float(), 1, generator=gen)[:, 0])
            obs = out.observation
            seen += [*(obs.values() if isinstance(obs, dict) else [obs]), out.rewards]
        venv = VectorEnv(6, seed=0, preset="fast")
        got = venv.reset()
        for _ in range(60):
            active = torch.rand(6, generator=gen, dtype=torch.float32) < 0.2
            got = venv.step(torch.multinomial(got.action_mask.float(), 1, generator=gen)[:, 0], active=active)
            seen += [got.observation, got.rewards]
        return seen
    finally:
        torch.set_default_dtype(before)


@pytest.mark.parametrize("observation", ["flat", "graph"])
def test_torch_default_dtype_float64_changes_nothing(observation: str) -> None:
    """With ``torch.set_default_dtype(torch.float64)`` every learner-seat face failed at its first opponent turn (a
    float64 reward row put into float32 ones), observations came out float64 and the random draws differed."""
    opponents = ["random", "aggressive", "balanced", "continent"]
    f32, f64 = _played(torch.float32, observation, opponents), _played(torch.float64, observation, opponents)
    assert len(f32) == len(f64)
    for a, b in zip(f32, f64, strict=True):
        assert b.dtype == a.dtype != torch.float64 and torch.equal(a, b)
