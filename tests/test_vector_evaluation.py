"""risk_env.evaluate(..., backend="vector"): the batched evaluation against the reference one."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env import ConfigError, RiskError
from risk_env.tools.evaluation import evaluate, round_robin
from risk_env.tools.stats import EvaluationResult
from risk_env.vector.specs import batched_policy

SMALL = dict(map="small", setup="random", turn_limit=60)
VEC = dict(backend="vector", device=str(DEVICE))


def _z(p1: float, n1: int, p2: float, n2: int) -> float:
    """The two-proportion z statistic."""
    p = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = math.sqrt(max(p * (1 - p), 1e-12) * (1 / n1 + 1 / n2))
    return abs(p1 - p2) / se


def test_batched_evaluation_agrees_with_the_reference_one() -> None:
    """A learned policy (the shipped ppo-2p-0.1) against the balanced heuristic: 1,000 batched games and 100
    reference games give win rates within each other's 95 % intervals, and games of the same length."""
    pytest.importorskip("sb3_contrib", reason="the pretrained agent needs the train extra")
    vec = evaluate(["ppo-2p-0.1", "balanced"], num_games=1000, rules=SMALL, seed=3, **VEC, progress=False)
    ref = evaluate(["ppo-2p-0.1", "balanced"], num_games=100, rules=SMALL, seed=3, workers=1, progress=False)
    assert isinstance(vec, EvaluationResult) and vec.entrants == ref.entrants == ["ppo-2p-0.1", "balanced"]
    for name in vec.entrants:
        a, b = vec.stats[name], ref.stats[name]
        assert a.games == 1000 and b.games == 100
        assert a.ci_low <= b.win_rate <= a.ci_high or b.ci_low <= a.win_rate <= b.ci_high
        assert _z(a.win_rate, a.games, b.win_rate, b.games) < 3.0
    for attr in ("turns", "steps"):
        x = np.array([getattr(g, attr) for g in vec.games], dtype=float)
        y = np.array([getattr(g, attr) for g in ref.games], dtype=float)
        se = math.sqrt(x.var() / len(x) + y.var() / len(y))
        assert abs(x.mean() - y.mean()) < 4 * se, (attr, x.mean(), y.mean())


def test_batched_schedule_seats_and_records(tmp_path: Path) -> None:
    """Seats rotate (each entrant plays each seat equally often), every game is recorded once, a repeated
    spec is numbered, places follow the elimination order, the same seed repeats the evaluation, and the
    result saves like the reference one."""
    agents = ["aggressive", "continent", "aggressive"]
    kw = dict(num_games=90, rules={**SMALL, "num_players": 3}, seed=5, batch_size=30, progress=False, **VEC)
    res = evaluate(agents, out_dir=tmp_path, **kw)  # type: ignore[arg-type]
    assert res.entrants == ["aggressive", "continent", "aggressive#2"]
    assert [g.index for g in res.games] == list(range(90))
    seats = Counter((g.seats.index(name), name) for g in res.games for name in g.seats)
    assert set(seats.values()) == {30}  # 3 entrants x 3 seats, 30 games each
    for g in res.games:
        if g.winner is not None:
            assert g.places[g.winner] == 1 and len(g.elimination_order) == 2
            assert [g.places[e] for e in g.elimination_order] == [3, 2]
            assert g.territories[g.winner] == 9
        else:
            assert g.truncated and all(g.places[s] == 1 for s in g.seats if s not in g.elimination_order)
    assert sum(st.wins + st.draws + st.losses for st in res.stats.values()) == 3 * 90
    again = evaluate(agents, **kw)  # type: ignore[arg-type]
    assert [(g.winner, g.turns, g.steps) for g in again.games] == [(g.winner, g.turns, g.steps) for g in res.games]
    assert (tmp_path / "summary.csv").is_file() and (tmp_path / "results.json").is_file()


def test_batched_step_guard_stops_games_as_a_loss_for_the_staller() -> None:
    res = evaluate(["aggressive", "random"], num_games=8, rules=SMALL, seed=0, **VEC, max_turn_steps=3, progress=False)
    stalled = [g for g in res.games if g.stalled_by is not None]
    assert stalled and all(g.winner is None and not g.truncated for g in stalled)
    for g in stalled:
        other = next(s for s in g.seats if s != g.stalled_by)
        assert g.places[g.stalled_by] == 2 and g.places[other] == 1


def _first_legal(observation, info):  # type: ignore[no-untyped-def]
    """The lowest legal id: it never ends a phase it may go on with, so a turn lasts well over 100 ids."""
    return int(np.flatnonzero(observation["action_mask"])[0])


class _FirstLegalBatched:
    """:func:`_first_legal` as a batched policy."""

    name = "first"

    def __call__(self, state, mask, active=None):  # type: ignore[no-untyped-def]
        return mask.float().argmax(1)  # (the first of the maxima: the lowest legal id)


@pytest.mark.parametrize("cap", [1, 2, 10])
def test_both_backends_stop_a_turn_at_the_same_id(cap: int) -> None:
    # (the vector backend let a turn take max_turn_steps + 1 ids, + 2 in a slot's later games: it counted the new
    # game's first id against the finished game's turn)
    kw = dict(num_games=6, rules={**SMALL, "num_players": 2}, seed=4, progress=False, max_turn_steps=cap)
    ref = evaluate([_first_legal, _first_legal], **kw, workers=1)  # type: ignore[arg-type]
    vec = evaluate([_FirstLegalBatched(), _FirstLegalBatched()], **kw, **VEC, batch_size=2)  # type: ignore[arg-type]
    for res in (ref, vec):
        assert [(g.steps, g.turns, g.stalled_by is not None, g.winner) for g in res.games] == [(cap, 1, True, None)] * 6


def test_the_vector_backend_refuses_workers_and_both_refuse_a_progress_that_is_no_bool(tmp_path: Path) -> None:
    # (the vector backend ignored workers, even workers=0; progress="x" was taken as a bar on both backends)
    out = tmp_path / "out"
    for play in (evaluate, round_robin):
        for workers in (0, 2, np.int64(4)):
            with pytest.raises(ConfigError) as info:
                play(["balanced", "random"], num_games=2, rules=SMALL, **VEC, workers=workers, progress=False, out_dir=out)
            assert str(info.value) == (
                f"workers={int(workers)}: the vector backend plays its games in one process (batch_size sets how many "
                "at once); leave workers out, or set backend='reference' to play in worker processes"
            )
        for kwargs in ({"workers": 1}, VEC):
            for progress in ("x", 1, None):
                with pytest.raises(ConfigError) as info:
                    play(["balanced", "random"], num_games=2, rules=SMALL, progress=progress, out_dir=out, **kwargs)
                assert str(info.value) == f"progress must be True or False, got {progress!r}"
    assert not out.exists()
    for workers in (None, 1):  # (1 is this process, where the vector backend plays)
        res = evaluate(["balanced", "random"], num_games=2, rules=SMALL, **VEC, workers=workers, progress=np.False_)
        assert (res.num_games, res.workers) == (2, 1)


def test_cli_evaluate_refuses_workers_on_the_vector_backend() -> None:
    from helpers import run_cli

    args = ["evaluate", "random", "random", "--games", "2", "--rules", "fast", "--set", "map=small", "--no-progress"]
    code, out, err = run_cli(*args, "--backend", "vector", "--device", str(DEVICE), "--workers", "2")
    assert code == 2 and "worker(s)" not in out
    assert (out + err).strip().splitlines()[-1] == (
        "error: --workers 2: --backend vector plays its games in one process (--batch-size sets how many at once); "
        "leave --workers out, or use --backend reference"
    )


def test_batched_evaluation_refuses_what_it_cannot_play() -> None:
    with pytest.raises(ConfigError, match="backend"):
        evaluate(["random", "random"], num_games=2, backend="gpu", progress=False)
    with pytest.raises(ConfigError, match="backend='reference'"):
        evaluate(["random", "risk_env.agents.random_agent:RandomAgent"], num_games=2, **VEC, progress=False)
    with pytest.raises(ConfigError, match="classic rules"):
        evaluate(["balanced", "random"], num_games=2, rules={"fortify": "connected"}, **VEC, progress=False)
    with pytest.raises(ConfigError, match="batch_size"):
        evaluate(["random", "random"], num_games=2, **VEC, batch_size=0, progress=False)
    # a batch beyond the device's memory (8 KB a game on the classic map): refused before a game is made, not killed
    with pytest.raises(ConfigError, match=r"^batch_size=2,000,000,000: the games need about .* the largest batch_size"):
        evaluate(["random", "random"], num_games=2 * 10**9, **VEC, batch_size=2 * 10**9, progress=False)


@pytest.mark.parametrize(
    ("kwargs", "given"),
    [
        ({"device": "cuda"}, "device='cuda'"),
        ({"device": "cpu"}, "device='cpu'"),  # (the default was "cpu": an explicit "cpu" could not be told apart)
        ({"batch_size": 64}, "batch_size=64"),
        ({"device": "nope", "batch_size": 8}, "device='nope', batch_size=8"),
    ],
)
def test_the_reference_backend_refuses_the_vector_backends_arguments(kwargs: dict, given: str, tmp_path: Path) -> None:
    # (both were ignored: the games ran on the CPU in worker processes, whatever was asked)
    for play in (evaluate, round_robin):
        with pytest.raises(ConfigError) as info:
            play(["random", "random"], num_games=2, progress=False, out_dir=tmp_path / "out", **kwargs)
        assert str(info.value) == (
            f"{given}: device and batch_size are arguments of backend='vector' (the reference backend plays game by "
            "game on the CPU, in `workers` processes); leave them out or set backend='vector'"
        )
    assert not (tmp_path / "out").exists()
    assert evaluate(["random", "random"], num_games=2, progress=False, device=None, workers=1).num_games == 2


def test_the_vector_backend_without_a_device_plays_on_the_cpu() -> None:
    # (device defaults to None, so that the reference backend can refuse an explicit "cpu"; the vector backend reads
    # None as the CPU, as its old default "cpu")
    result = evaluate(["random", "aggressive"], num_games=4, rules=SMALL, seed=1, backend="vector", progress=False)
    again = evaluate(["random", "aggressive"], num_games=4, rules=SMALL, seed=1, backend="vector", device="cpu", progress=False)
    assert result.num_games == 4 and [g.winner for g in result.games] == [g.winner for g in again.games]
    pairs = round_robin(["random", "aggressive"], num_games=2, rules=SMALL, backend="vector", progress=False)
    assert list(pairs) == [("random", "aggressive")]


def test_a_policy_file_named_without_its_suffix_plays_on_both_backends(tmp_path: Path) -> None:
    # (load_agent took "runs/x/model" for runs/x/model.pt; the vector backend refused it as a spec it cannot play)
    import torch

    from risk_env.agents import load_agent
    from risk_env.train.graph_net import GraphNet, save_policy
    from risk_env.vector import VectorGame

    torch.manual_seed(0)
    save_policy(tmp_path / "model.pt", GraphNet(20, 73, 28, hidden=8, rounds=1), timesteps=0)
    spec = str(tmp_path / "model")
    assert load_agent(spec).name == "model"
    game = VectorGame(device=DEVICE, num_players=2, **SMALL)
    policy = batched_policy(spec, game, torch.Generator(device=DEVICE))
    assert policy.name == "model"
    kw = dict(num_games=4, rules={**SMALL, "num_players": 2}, seed=3, progress=False)
    vec = evaluate([spec, "random"], **kw, **VEC)
    ref = evaluate([spec, "random"], **kw, workers=1)
    assert vec.entrants == ref.entrants and vec.num_games == ref.num_games == 4
    with pytest.raises(RiskError, match="no policy file"):
        batched_policy(str(tmp_path / "other.pt"), game, torch.Generator(device=DEVICE))
    save_policy(tmp_path / "lr-0.5.pt", GraphNet(20, 73, 28, hidden=8, rounds=1), timesteps=0)  # (a dot in the name:
    dotted = str(tmp_path / "lr-0.5")  # no suffix of its own; it was refused by both, as "0.5" was read as a suffix)
    assert load_agent(dotted).name == "lr-0.5" and batched_policy(dotted, game, torch.Generator(device=DEVICE)).name == "lr-0.5"


@pytest.mark.parametrize("spec", ["ppo-4p.pt", "PPO-2P.zip"])
def test_a_pretrained_name_with_a_suffix_is_refused_with_its_name(spec: str, tmp_path: Path, monkeypatch) -> None:
    import torch

    from risk_env.agents import load_agent
    from risk_env.train.graph_net import GraphNet, save_policy
    from risk_env.vector import VectorGame

    monkeypatch.chdir(tmp_path)
    game = VectorGame(device=DEVICE, num_players=2, **SMALL)
    name = spec.split(".")[0].lower()
    hint = f"no model file at {spec!r}: {name!r} is a pretrained agent, given by its name without a suffix"
    with pytest.raises(RiskError) as ref:
        load_agent(spec)
    with pytest.raises(RiskError) as vec:
        batched_policy(spec, game, torch.Generator(device=DEVICE))
    assert str(ref.value) == str(vec.value) == hint
    if spec.endswith(".pt"):  # a file of that name that is there is read as a file
        save_policy(tmp_path / spec, GraphNet(20, 73, 28, hidden=8, rounds=1), timesteps=0)
        assert load_agent(spec).name == "ppo-4p"
        assert batched_policy(spec, game, torch.Generator(device=DEVICE)).name == "ppo-4p"


def test_cli_evaluate_on_the_vector_backend() -> None:
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from risk_env.tools.cli import app

    args = ["evaluate", "aggressive", "random", "--games", "20", "--rules", "fast", "--set", "map=small", "--no-progress"]
    result = CliRunner().invoke(app, [*args, "--backend", "vector", "--device", str(DEVICE), "--batch-size", "10"])
    assert result.exit_code == 0, result.output
    assert "aggressive" in result.output and "20 games" in result.output
    bad = CliRunner().invoke(app, [*args, "--backend", "gpu"])
    assert bad.exit_code != 0 and "--backend must be" in bad.output
    ignored = CliRunner().invoke(app, [*args, "--device", "cuda", "--batch-size", "10"])
    assert ignored.exit_code == 2 and ignored.output.strip().splitlines()[-1] == (
        "error: --device cuda --batch-size 10: --device and --batch-size are options of --backend vector "
        "(the reference backend would ignore them)"
    )


def test_a_batched_policy_writing_into_its_mask_cannot_make_an_illegal_move() -> None:
    """A policy marks an illegal territory id legal in the mask it is given and plays it: the
    evaluation checks the id against its own mask and refuses it."""
    import torch

    T = 9  # territories of the small map

    class MaskWriter:
        name = "mask-writer"

        def __call__(self, state, mask, active=None):
            rows = torch.arange(mask.shape[0], device=mask.device)
            ids = (~mask[:, :T]).long().argmax(1)  # the first territory the mask forbids
            mask[rows, ids] = True
            return ids

    with pytest.raises(RiskError, match=r"entrant 0 chose the illegal id \d+"):
        evaluate([MaskWriter(), "random"], num_games=2, rules=SMALL, seed=0, **VEC, progress=False)


def test_a_batched_policy_writing_into_the_state_it_is_given_changes_nothing() -> None:
    """A policy that plays the first legal id and then wipes the state and the mask it was given plays
    exactly the games of one that only plays the first legal id: it got copies."""

    class FirstLegal:
        name = "first-legal"

        def __init__(self, wipe: bool) -> None:
            self.wipe = wipe

        def __call__(self, state, mask, active=None):  # type: ignore[no-untyped-def]
            ids = mask.long().argmax(1)
            if self.wipe:
                for t in state.fields().values():
                    t.zero_()
                mask.zero_()
            return ids

    kw = dict(num_games=12, rules={**SMALL, "num_players": 3}, seed=2, progress=False, **VEC)
    calm = evaluate([FirstLegal(False), "aggressive", "random"], **kw)  # type: ignore[arg-type]
    wild = evaluate([FirstLegal(True), "aggressive", "random"], **kw)  # type: ignore[arg-type]

    def games(res: EvaluationResult) -> list:
        return [(g.seats, g.winner, g.turns, g.steps, g.elimination_order, g.territories) for g in res.games]

    assert games(wild) == games(calm)
    assert sum(g.steps for g in calm.games) > 12 * 50 and {g.winner for g in calm.games} - {None}


def test_a_batched_policy_sees_only_what_its_seat_may_know() -> None:
    """Each policy gets the games where its seat acts, as that seat knows them (BatchState.known_to):
    its own mission, no other one, and the other seats' cards filled in a fixed way (the lowest cards
    it has not seen), never theirs."""
    import torch

    from risk_env.vector.agents import RandomPolicy

    class Spy:
        name = "spy"

        def __init__(self) -> None:
            gen = torch.Generator(device=DEVICE)
            gen.manual_seed(0)
            self.random = RandomPolicy(gen)
            self.seen: list[tuple[list[int], list[int]]] = []

        def __call__(self, state, mask, active=None):  # type: ignore[no-untyped-def]
            assert active is None and state.batch_size == mask.shape[0] >= 1
            self.seen += zip(state.card_loc.tolist(), state.missions.tolist(), strict=True)
            return self.random(state, mask, active)

    spy = Spy()
    rules = dict(map="classic", num_players=3, setup="random", secret_missions=True, turn_limit=24)
    evaluate([spy, "random", "random"], num_games=6, rules=rules, seed=4, progress=False, **VEC)
    held_by_others = 0
    for loc, missions in spy.seen:
        (me,) = [p for p, m in enumerate(missions) if m >= 0]  # its own mission, and no other
        unseen = [c for c, where in enumerate(loc) if where not in (-2, me)]
        others = sorted(c for c, where in enumerate(loc) if where >= 0 and where != me)
        assert others == unseen[: len(others)]  # the lowest unseen cards, whoever really holds them
        assert [loc[c] for c in others] == sorted(loc[c] for c in others)  # dealt in seat order
        held_by_others += len(others)
    assert len(spy.seen) > 500 and held_by_others > 100


def test_known_to_hides_the_other_seats_cards_and_missions_as_knowledge_does() -> None:
    import torch
    from helpers import give_cards

    from risk_env import ConfigError, Game, RulesConfig
    from risk_env.rules.knowledge import Knowledge
    from risk_env.vector import VectorGame

    rules = RulesConfig(num_players=3, setup="random", secret_missions=True)
    game = Game(rules)
    s = game.new_game(seed=1)
    give_cards(s, 0, [5, 17])
    give_cards(s, 1, [2, 30, 41])
    give_cards(s, 2, [9])
    for c in (0, 1, 3):
        s.deck.remove(c)
        s.discard.append(c)
    vg = VectorGame(rules, device=str(DEVICE))
    vs = vg.from_states([s, s.copy()])
    before = {k: v.clone() for k, v in vs.fields().items()}
    view = vs.known_to(torch.tensor([1, 2], device=DEVICE))
    want = [-1] * 44
    for c in (2, 30, 41):
        want[c] = 1  # its own
    for c in (0, 1, 3):
        want[c] = -2  # the discards are public
    want[4], want[5], want[6] = 0, 0, 2  # the lowest unseen cards: seat 0's two, then seat 2's one
    assert view.card_loc[0].tolist() == want
    assert view.missions.tolist() == [[-1, s.missions[1], -1], [-1, -1, s.missions[2]]]
    for seat in range(3):  # the same cards as the reference engine's fixed position
        ref = vg.from_states([Knowledge.of(s, seat).position(game)])
        assert vs.known_to(torch.tensor([seat], device=DEVICE), torch.tensor([0], device=DEVICE)).card_loc.equal(ref.card_loc)
    for name, t in view.fields().items():
        if name not in ("card_loc", "missions"):
            assert t.equal(before[name]), name
    view.owner.fill_(0)
    view.card_loc.fill_(0)
    assert all(t.equal(before[k]) for k, t in vs.fields().items())  # a copy
    for bad, message in (
        (torch.tensor([1.0, 2.0]), "integer tensor of shape \\(2,\\)"),
        (torch.tensor([1]), "integer tensor of shape \\(2,\\)"),
        ([1, 2], "got list"),
        (torch.tensor([0, 3]), "seats 0..2, got \\[0, 3\\]"),
    ):
        with pytest.raises(ConfigError, match=message):
            vs.known_to(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            lambda mask: mask.long().argmax(1)[:1].repeat(mask.shape[0] + 1),
            r"entrant 0 must return an integer tensor of shape \(\d+,\)",
        ),
        (lambda mask: mask.float().argmax(1).float(), r"entrant 0 must return an integer tensor .* got torch.float32"),
        (lambda mask: [0] * mask.shape[0], "entrant 0 must return an integer tensor .* got list"),
        (lambda mask: mask.long().argmax(1) + 10_000, r"entrant 0 chose the id 1\d{4}, outside the action ids 0..\d+"),
    ],
)
def test_a_batched_policy_answering_something_else_than_ids_is_refused(answer, message) -> None:  # type: ignore[no-untyped-def]
    class Odd:
        name = "odd"

        def __call__(self, state, mask, active=None):  # type: ignore[no-untyped-def]
            return answer(mask)

    with pytest.raises(RiskError, match=message):
        evaluate([Odd(), "random"], num_games=2, rules=SMALL, seed=0, **VEC, progress=False)


@pytest.mark.parametrize(
    ("agents", "kwargs", "error", "message"),
    [
        (["random", "no_such_agent"], {}, RiskError, "no_such_agent"),
        (["random", "no_such_agent"], VEC, ConfigError, "no_such_agent"),
        (["random", "random"], {"backend": "vector", "device": "nope"}, ConfigError, "device='nope' is not a torch device"),
        (["random", "random"], {"backend": "vector", "device": "hpu"}, ConfigError, "device='hpu' is not available"),
    ],
)
def test_evaluate_checks_the_agents_and_the_device_before_it_makes_out_dir(
    agents: list[str], kwargs: dict, error: type, message: str, tmp_path: Path
) -> None:
    # (out_dir was made before the agents and the device were checked, and left behind)
    for play in (evaluate, round_robin):
        with pytest.raises(error, match=message):
            play(agents, num_games=2, rules=SMALL, progress=False, out_dir=tmp_path / "new" / "out", **kwargs)
        assert list(tmp_path.iterdir()) == []


def test_round_robin_checks_every_entrant_before_the_first_pair_plays(tmp_path: Path) -> None:
    # (the first pairs played and wrote their results before a bad third entrant was found)
    for kwargs in ({"workers": 1}, VEC):
        with pytest.raises(RiskError, match="no_such_agent"):
            round_robin(
                ["random", "aggressive", "no_such_agent"],
                num_games=2,
                rules=SMALL,
                progress=False,
                out_dir=tmp_path / "rr",
                **kwargs,
            )
        assert list(tmp_path.iterdir()) == []
    with pytest.raises(ConfigError, match="^agents must be a list of specs, got the single spec 'random'$"):
        round_robin("random", num_games=2, out_dir=tmp_path / "rr")
    out = tmp_path / "blocker"
    out.write_text("x")
    with pytest.raises(ConfigError, match=f"^cannot write results to {str(out / 'rr')!r}: Not a directory"):
        round_robin(["random", "aggressive"], num_games=2, rules=SMALL, progress=False, out_dir=out / "rr")
    res = round_robin(["random", "aggressive"], num_games=2, rules=SMALL, progress=False, out_dir=tmp_path / "ok", **VEC)
    assert list(res) == [("random", "aggressive")] and (tmp_path / "ok" / "round_robin.md").exists()


def test_a_network_trained_with_the_turn_is_shown_it_on_both_backends(tmp_path: Path) -> None:
    # (both players of a policy file fed such a network turn 0: the device trainer's env.turn_feature was lost)
    import torch

    import risk_env
    from risk_env.agents import load_agent
    from risk_env.train.graph_net import GraphNet, save_policy
    from risk_env.vector import VectorGame

    torch.manual_seed(0)
    net = GraphNet(20, 73, 28, hidden=8, rounds=1)
    save_policy(tmp_path / "turn.pt", net, timesteps=0, config={"env": {"turn_feature": True}})
    save_policy(tmp_path / "plain.pt", net, timesteps=0, config={"env": {"turn_feature": None}})
    rules = {**SMALL, "num_players": 2}
    game = VectorGame(device=DEVICE, **rules)
    for name, shown in (("turn", True), ("plain", False)):
        assert batched_policy(str(tmp_path / f"{name}.pt"), game, torch.Generator(device=DEVICE)).turn_feature is shown
        agent = load_agent(str(tmp_path / f"{name}.pt"))
        seen: list[float] = []
        agent.net.register_forward_hook(lambda _m, args, _out, seen=seen: seen.append(float(args[2][0, 71])))
        env = risk_env.env(rules=rules, observation="flat")
        shown_env = risk_env.env(rules=rules, observation="graph", turn_feature=True)  # (the same game, lockstep)
        env.reset(seed=5)
        shown_env.reset(seed=5)
        turns = []
        for _ in env.agent_iter(max_iter=400):
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                break
            turns.append(float(shown_env.last()[0]["globals"][71]))
            action = agent.act(obs, info)
            env.step(action)
            shown_env.step(action)
        assert len(seen) == len(turns) > 50 and max(turns) > 0
        assert seen == (pytest.approx(turns) if shown else [0.0] * len(turns))


def test_a_batched_policy_without_a_name_is_told_what_it_lacks() -> None:
    """A batched callable with no ``name`` was refused as "an agent object" that plays one game at a time, though
    the learner env takes it; an agent's function ``f(observation, info)`` is still told to use the reference engine."""
    torch = pytest.importorskip("torch")

    class Nameless:
        def __call__(self, state, mask, active=None):  # type: ignore[no-untyped-def]
            return torch.multinomial(mask.float(), 1)[:, 0]

    lacks = r"a batched policy object \(policy\(state, mask, active\) -> ids\) needs a 'name' attribute"
    with pytest.raises(ConfigError, match=lacks):
        evaluate([Nameless(), "random"], num_games=2, rules=SMALL, backend="vector", progress=False)

    def agent(observation, info):  # type: ignore[no-untyped-def]
        return 0

    with pytest.raises(ConfigError, match=r"an agent object plays one game at a time, on the reference engine only"):
        evaluate([agent, "random"], num_games=2, rules=SMALL, backend="vector", progress=False)
    named = Nameless()
    named.name = "nameless"  # type: ignore[attr-defined]
    assert len(evaluate([named, "random"], num_games=2, rules=SMALL, seed=0, backend="vector", progress=False).games) == 2
