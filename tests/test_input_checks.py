"""Bad seeds and out-of-range state fields are clear RiskErrors and change nothing."""

import json
import os

import numpy as np
import pytest

import risk_env
from risk_env import ConfigError, Game, RulesConfig, StateError


@pytest.mark.parametrize("seed", ["a", -1, 1.5, True, [1, 2]])
def test_bad_seeds_are_rejected(seed):
    g = Game(RulesConfig(num_players=3))
    with pytest.raises(ConfigError, match="seed must be None, an integer >= 0"):
        g.new_game(seed)
    env = risk_env.env(num_players=3)
    env.reset(seed=0)
    before = env.unwrapped.game_state.to_dict()
    with pytest.raises(ConfigError, match="seed must be"):
        env.reset(seed=seed)
    assert env.unwrapped.game_state.to_dict() == before


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True, np.bool_(True), None])
def test_every_seeded_entry_point_refuses_the_same_seeds(seed):
    """One check (``risk_env.errors.check_seed``) behind every seed argument: the same refusal,
    naming what is allowed; None only where it means something."""
    pytest.importorskip("torch")
    from risk_env.agents import RandomAgent
    from risk_env.errors import check_seed
    from risk_env.tools.match import play_match
    from risk_env.vector import VectorEnv, VectorGame
    from risk_env.vector.gym_vector import GymnasiumVectorEnv
    from risk_env.vector.learner import LearnerEnv

    with pytest.raises(ConfigError, match="^seed must be an integer >= 0, got "):
        check_seed(seed)
    with pytest.raises(ConfigError, match="^seed must be an integer >= 0, got "):
        VectorGame(RulesConfig(num_players=3), seed=seed)
    with pytest.raises(ConfigError, match="^seed must be an integer >= 0, got "):
        risk_env.evaluate(["random", "random"], num_games=1, seed=seed, progress=False)
    with pytest.raises(ConfigError, match="^seed must be an integer >= 0, got "):
        LearnerEnv(2, seed=seed, num_players=2)
    with pytest.raises(ConfigError, match="^seed must be an integer >= 0, got "):
        play_match(risk_env.env(num_players=2), [RandomAgent(), RandomAgent()], seed=1, agent_seeds=[1, seed])
    if seed is not None:
        with pytest.raises(ConfigError, match="^seed must be None or an integer >= 0, got "):
            VectorEnv(2, rules=RulesConfig(num_players=3)).reset(seed=seed)
        with pytest.raises(ConfigError, match="^seed must be None or an integer >= 0, got "):
            GymnasiumVectorEnv(2, num_players=2).reset(seed=seed)


def test_numpy_integer_seeds_are_seeds_everywhere():
    torch = pytest.importorskip("torch")
    from risk_env.vector import VectorEnv
    from risk_env.vector.gym_vector import GymnasiumVectorEnv

    env = VectorEnv(4, rules=RulesConfig(num_players=3))
    a = env.reset(seed=np.int64(7)).observation.clone()
    gym_env = GymnasiumVectorEnv(2, seed=np.int64(1), num_players=2)
    np.testing.assert_array_equal(gym_env.reset(seed=np.int64(3))[0], gym_env.reset(seed=3)[0])
    assert torch.equal(a, env.reset(seed=7).observation)
    result = risk_env.evaluate(["random", "random"], num_games=2, seed=np.int64(3), progress=False)
    assert type(result.seed) is int and result.seed == 3 and result.num_games == 2


def test_play_match_reports_a_numpy_seed_as_an_int_and_refuses_a_seed_sequence_before_reseeding():
    from risk_env.agents import RandomAgent
    from risk_env.tools.match import play_match

    env = risk_env.env(num_players=2, preset="fast", map="small")
    r = play_match(env, [RandomAgent(0), RandomAgent(1)], seed=np.int64(3), max_steps=30)
    assert type(r.seed) is int and r.seed == 3
    again = play_match(env, [RandomAgent(0), RandomAgent(1)], seed=3, max_steps=30)
    assert (again.turns, again.moves, again.territories) == (r.turns, r.moves, r.territories)
    first = RandomAgent(0)
    draws = first.rng.integers(1 << 30, size=3).tolist()
    first.reset(0)
    with pytest.raises(ConfigError, match="^seed must be None or an integer >= 0, got SeedSequence"):
        play_match(env, [first, RandomAgent()], seed=np.random.SeedSequence(5), agent_seeds=[9, 9])
    assert first.rng.integers(1 << 30, size=3).tolist() == draws  # not re-seeded with 9


def test_good_seeds_are_accepted():
    g = Game(RulesConfig(num_players=3))
    a = g.new_game(np.int64(5)).to_dict()
    assert a == g.new_game(5).to_dict()
    g.new_game(np.random.SeedSequence(1))
    g.new_game(None)


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("sets_traded", 10**20, "sets_traded=.* must be in 0..1000000000"),
        ("turn", 10**12, "turn=.* must be in 0..1000000000"),
        ("dice_pos", -5, "dice_pos=-5 must be in"),
        ("dice_pos", 10_000, "past the"),
        ("forced", "junk", "'forced' must be true or false"),
        ("truncated", None, "'truncated' must be true or false"),
        ("alive", [-99, -99, -99], "'alive' must be a list of true/false"),
    ],
)
def test_out_of_range_state_fields(field, value, message):
    g = Game(RulesConfig(num_players=3))
    d = g.new_game(1).to_dict()
    d[field] = value
    with pytest.raises(StateError, match=message):
        g.state_from_dict(d)


# ---------------------------------------------------------------- positions the engine can go on from


def _midgame(rules: RulesConfig, seed: int = 1, phase: int | None = None):
    """A position of ``rules`` reached by random play (the first in ``phase`` if given), as a dict."""
    from risk_env import ActionCodec, Phase
    from risk_env.envs.codec import Selection

    g = Game(rules)
    codec = ActionCodec(g)
    s = g.new_game(seed)
    sel = Selection()
    rng = np.random.default_rng(seed)
    while s.phase != Phase.GAME_OVER and (
        s.phase != (phase if phase is not None else Phase.ATTACK) or s.turn < 2 or sel != Selection()
    ):
        legal = np.flatnonzero(codec.mask(s, sel))
        w = np.where(legal == codec.end, 0.1, 1.0)
        codec.step(s, int(rng.choice(legal, p=w / w.sum())), sel)
    return g, s.to_dict()


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("turn", 3.0, r"'turn' must be an integer, got 3.0 \(float\)"),
        ("turn", "3", r"'turn' must be an integer, got '3' \(str\)"),
        ("player", True, r"'player' must be an integer, got the bool True"),
        ("to_place", None, r"'to_place' must be an integer, got None"),
        ("alive", [1, 1, 1], r"'alive' must be a list of true/false"),
        ("forced", 0, r"'forced' must be true or false, got 0"),
        ("armies", [1.5] * 42, r"'armies' must be a list of integers, holds 1.5 \(float\)"),
        ("hands", [[], [], [], []], r"'hands' must hold 3 hands"),
        ("deck", [1, "2"], r"'deck' must be a list of integers, holds '2'"),
        ("rng", {"bit_generator": "PCG64", "state": {"state": 1.5, "inc": 1}, "has_uint32": 0, "uinteger": 0}, r"'rng' must be"),
        (
            "rng",
            {"bit_generator": "PCG64", "state": {"state": 1, "inc": 1}, "has_uint32": 0, "uinteger": 2**40},
            r"'rng' must be",
        ),
        ("bogus", 1, r"unknown key 'bogus'"),
    ],
)
def test_values_of_the_wrong_kind_are_state_errors(field, value, message):
    g = Game(RulesConfig(num_players=3))
    d = g.new_game(1).to_dict()
    d[field] = value
    with pytest.raises(StateError, match=message):
        g.state_from_dict(d)


def test_numpy_integers_in_a_state_dict_are_read_as_ints():
    g = Game(RulesConfig(num_players=3))
    s = g.new_game(1)
    d = s.to_dict()
    d["turn"] = np.int64(d["turn"])
    d["owner"] = [np.int32(x) for x in d["owner"]]
    again = g.state_from_dict(d)
    assert again == s and type(again.turn) is int


def test_positions_the_engine_cannot_go_on_from_are_refused():
    from risk_env import Phase

    rules = RulesConfig(num_players=3, map="small", setup="random", turn_limit=40)
    g, good = _midgame(rules)
    cases = []

    def case(message, **changes):
        d = {**json.loads(json.dumps(good)), **changes}
        cases.append((d, message))

    seat = good["player"]
    case("past the turn limit 40", turn=41)
    case("no legal move in the reinforce phase", phase=int(Phase.REINFORCE), to_place=0, forced=False)
    case("the defend phase", phase=int(Phase.DEFEND))
    case("has no winner and is not truncated", winner=seat)
    case("game over without a winner or a truncation", phase=int(Phase.GAME_OVER))
    case("has live opponents", phase=int(Phase.GAME_OVER), winner=seat)
    case("truncated at the turn limit \\(40\\), not at turn", phase=int(Phase.GAME_OVER), truncated=True)
    case("elim_order .* must list each eliminated seat", elim_order=[seat])
    case("more than the 1000000000 allowed", to_place=10**9)
    case("sets_traded=2000000 must be at most 1000000", sets_traded=2 * 10**6)
    case("att_dice=5 must be in 0..3", att_dice=5)
    case("a trade-down after an elimination \\(trade_down\\) waits for the occupation", trade_down=True)
    case("resume_attack marks a trade-down", resume_attack=True, phase=int(Phase.FORTIFY))
    case("setup_left .* must be all 0 once the setup is over", setup_left=[1, 0, 0, 0])
    for d, message in cases:
        with pytest.raises(StateError, match=message):
            g.state_from_dict(d)
    g.state_from_dict(good)


def test_a_dead_seat_and_a_finished_game():
    from risk_env import Phase

    g, good = _midgame(RulesConfig(num_players=3, map="small", setup="random", starting_armies=6, turn_limit=60))
    d = json.loads(json.dumps(good))
    other = next(p for p in range(3) if p != d["player"])
    d["alive"][other] = False
    with pytest.raises(StateError, match=f"player {other} is dead but holds some territories"):
        g.state_from_dict(d)
    # one player holding everything: the game is over, with that player the winner
    d = json.loads(json.dumps(good))
    p = d["player"]
    d["owner"] = [p] * g.T
    d["alive"] = [q == p for q in range(3)]
    d["elim_order"] = [q for q in d["order"] if q != p]
    d["hands"] = [sorted(c for h in d["hands"] for c in h) if q == p else [] for q in range(3)]
    with pytest.raises(StateError, match="only 1 player is alive: the game should be over"):
        g.state_from_dict(d)
    d["phase"], d["winner"] = int(Phase.GAME_OVER), p
    assert g.state_from_dict(d).winner == p


def test_the_claims_to_come_need_their_setup_armies():
    """The case the position fuzzer found: a claim-phase position whose player has too few
    setup armies for its claims to come loads, and fails one claim later."""
    from risk_env import Phase

    g = Game(RulesConfig(num_players=3, map="small", defender_dice="choose", turn_limit=30))
    d = g.new_game(0).to_dict()
    assert d["phase"] == Phase.CLAIM
    d["setup_left"][d["player"]] = 1  # 9 territories, 3 claims each: 1 army is too few
    with pytest.raises(StateError, match=r"the 9 claims to come need setup armies \[3, 3, 3, 0\]"):
        g.state_from_dict(d)


def test_missions_and_capitals_that_cannot_be():
    g = Game(RulesConfig(num_players=3, secret_missions=True))
    d = g.new_game(2).to_dict()
    d["missions"][0] = 13  # destroy colour 5: nobody plays it in a 3-player game
    with pytest.raises(StateError, match="names a colour nobody plays"):
        g.state_from_dict(d)
    g = Game(RulesConfig(num_players=3, capitals=True, setup="random"))
    d = g.new_game(2).to_dict()
    d["capitals"] = [0, 0, -1]
    with pytest.raises(StateError, match="two players have the same capital"):
        g.state_from_dict(d)


def test_a_pending_defence_needs_its_rules_and_a_battle():
    from risk_env import Phase

    rules = RulesConfig(num_players=3, map="small", setup="random", defender_dice="choose", turn_limit=40)
    g, d = _midgame(rules, phase=Phase.DEFEND)
    assert d["phase"] == Phase.DEFEND and g.state_from_dict(d).phase == Phase.DEFEND
    with pytest.raises(StateError, match="the defend phase exists only under defender_dice='choose'"):
        Game(rules.replace(defender_dice="max")).state_from_dict(d)
    for changes, message in (
        ({"att_dice": 0}, r"att_dice=0 must be 1\.\."),
        ({"att_dst": d["att_src"]}, "is not across a border"),
    ):
        with pytest.raises(StateError, match=message):
            g.state_from_dict({**d, **changes})


@pytest.mark.parametrize("preset", ["classic", "fast", "tournament", "expert", "duel", "secret_missions", "capitals", "allied"])
def test_every_position_of_played_games_loads_again(preset):
    """The checks refuse nothing the engine reaches: every position of games played with a bias
    towards attacking (conquests, eliminations, wins, trade-downs) saves and loads unchanged."""
    from risk_env import ActionCodec, Phase
    from risk_env.envs.codec import Selection
    from risk_env.rules.config import resolve_rules

    small = preset != "secret_missions"
    where = {"map": "small", "turn_limit": 40, "starting_armies": 8} if small else {"map": "classic", "turn_limit": 15}
    for seed in range(3):
        players = {} if preset in ("duel", "allied") else {"num_players": 3 + seed % 2}
        g = Game(resolve_rules(preset, **where, **players))
        codec = ActionCodec(g)
        s = g.new_game(seed)
        sel = Selection()
        rng = np.random.default_rng(seed)
        seen = 0
        while True:
            if sel == Selection():
                assert g.state_from_dict(s.to_dict()) == s
                seen += 1
            if s.phase == Phase.GAME_OVER:
                break
            legal = np.flatnonzero(codec.mask(s, sel))
            w = np.where(legal == codec.end, 0.03, 1.0)
            codec.step(s, int(rng.choice(legal, p=w / w.sum())), sel)
        assert seen > 20


def test_a_capital_choice_by_a_seat_that_does_not_play():
    """Found by the position fuzzer: a bad player in the capital phase raised IndexError."""
    g = Game(RulesConfig(num_players=3, capitals=True, setup="random"))
    d = g.new_game(2).to_dict()
    assert d["phase"] == 8  # the capital choice
    for player in (7, -1):
        with pytest.raises(StateError, match="the capital phase needs a player on turn without a capital"):
            g.state_from_dict({**d, "player": player})
    # without capitals the phase itself is refused (the capitals variant owns it)
    plain = Game(RulesConfig(num_players=3, setup="random"))
    with pytest.raises(StateError, match="these rules have no capital phase"):
        plain.state_from_dict({**plain.new_game(2).to_dict(), "phase": 8})


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True])
def test_agents_refuse_bad_seeds_and_keep_their_generator(seed):
    from risk_env.agents import BalancedAgent, RandomAgent

    with pytest.raises(ConfigError, match="^seed must be None, an integer >= 0 or a numpy SeedSequence, got "):
        BalancedAgent(seed=seed)
    agent = RandomAgent(seed=4)
    state = agent.rng.bit_generator.state
    with pytest.raises(ConfigError, match="seed must be"):
        agent.reset(seed)
    assert agent.rng.bit_generator.state == state
    agent.reset(np.random.SeedSequence(4))
    assert agent.rng.bit_generator.state == RandomAgent(seed=4).rng.bit_generator.state


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True])
def test_single_agent_env_refuses_bad_seeds_with_config_error(seed):
    from risk_env.envs.single_agent import RiskSingleAgentEnv

    env = RiskSingleAgentEnv(num_players=2, opponents="random")
    env.reset(seed=1)
    before = env.game_state.to_dict()
    with pytest.raises(ConfigError, match="^seed must be None or an integer >= 0, got "):
        env.reset(seed=seed)
    assert env.game_state.to_dict() == before
    env.reset(seed=np.int64(5))  # a numpy integer is a seed (Gymnasium itself takes Python ints only)
    after_numpy = env.game_state.to_dict()
    env.reset(seed=5)
    assert env.game_state.to_dict() == after_numpy


def test_torch_seeds_beyond_32_bits_are_refused_with_config_error():
    """torch's CPU generator reads the low 32 bits of a seed (2**32 plays seed 0's games), so a seed
    that goes to a torch generator is below 2**32; numpy's and Python's take any size."""
    torch = pytest.importorskip("torch")
    from risk_env.errors import check_seed
    from risk_env.vector import VectorEnv
    from risk_env.vector.learner import LearnerEnv

    a, b = torch.Generator().manual_seed(0), torch.Generator().manual_seed(2**32)
    assert torch.equal(torch.rand(4, generator=a), torch.rand(4, generator=b))  # (why the limit)
    check_seed(2**32 - 1, torch_seed=True)
    check_seed(2**70)
    for seed in (2**32, 2**64, 2**70):
        with pytest.raises(ConfigError, match=r"^seed must be below 2\*\*32 \(torch's CPU generator reads 32 bits"):
            check_seed(seed, torch_seed=True)
        with pytest.raises(ConfigError, match=r"^seed must be below 2\*\*32"):
            VectorEnv(2, seed=seed, rules=RulesConfig(num_players=2))
    env = LearnerEnv(2, seed=2**32 - 1, num_players=2)  # (the opponents' generator: seed + 7919, modulo 2**32)
    env.reset(seed=2**32 - 1)
    before = env.venv.state.owner.clone()
    with pytest.raises(ConfigError, match=r"^seed must be below 2\*\*32"):
        env.reset(seed=2**32)
    assert bool((env.venv.state.owner == before).all())


def test_seeds_are_checked_before_anything_changes():
    from risk_env.agents import RandomAgent, load_agent
    from risk_env.envs.opponents import reseed
    from risk_env.records.recorder import Recorder
    from risk_env.tools.match import play_match

    agents = [RandomAgent(seed=1), RandomAgent(seed=2)]
    states = [a.rng.bit_generator.state for a in agents]
    with pytest.raises(ConfigError, match="^seed must be"):
        play_match(risk_env.env(num_players=2), agents, seed=-1, agent_seeds=[5, 6])
    assert [a.rng.bit_generator.state for a in agents] == states  # the agents were not re-seeded
    with pytest.raises(ConfigError, match="^seed must be"):
        reseed(agents[0], -1)
    assert agents[0].rng.bit_generator.state == states[0]
    for spec in ("random", "ppo-2p-0.1", lambda obs, info: 0):
        with pytest.raises(ConfigError, match="^seed must be None or an integer >= 0, got 1.5"):
            load_agent(spec, seed=1.5)
    rec = Recorder(risk_env.env(num_players=2))
    rec.reset(seed=3)
    with pytest.raises(ConfigError, match="^seed must be None or an integer >= 0, got -1"):
        rec.reset(seed=-1)
    assert rec.records == [] and rec.record is not None and rec.record.seed == 3  # the game goes on, recorded
    obs, *_ = rec.last()
    rec.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert len(rec.record.actions) == 1


def test_a_record_needs_a_seed_that_replays():
    from risk_env.records.record import GameRecord, RecordError

    with pytest.raises(RecordError, match="integer seed >= 0"):
        GameRecord.start(Game(RulesConfig(num_players=2)), -1, ["a", "b"])


def test_the_training_seed_fits_sb3():
    from risk_env.train.config import TrainConfig

    with pytest.raises(ConfigError, match="seed"):
        TrainConfig.from_dict({"seed": 2**32})
    assert TrainConfig.from_dict({"seed": 2**32 - 1}).seed == 2**32 - 1


def test_batched_tools_check_their_seeds():
    pytest.importorskip("torch")
    pytest.importorskip("stable_baselines3")
    from risk_env.tools.vector_evaluation import evaluate_batched
    from risk_env.vector.sb3 import VectorSB3Env

    for seed in (1.5, "3", True, None):
        with pytest.raises(ConfigError, match="^seed must be an integer >= 0"):
            evaluate_batched(["random", "random"], 2, RulesConfig(num_players=2), seed=seed)
    venv = VectorSB3Env(2, seed=0, num_players=2)
    for seed in (-1, 1.5, True):
        with pytest.raises(ConfigError, match="^seed must be None or an integer >= 0"):
            venv.seed(seed)
    venv.seed(np.int64(4))
    a = venv.reset()
    venv.seed(4)
    np.testing.assert_array_equal(a, venv.reset())


def test_a_device_name_with_an_index_is_the_device_its_tensors_report():
    """``"cpu:0"`` (and ``"cuda"`` -> ``cuda:0`` on a GPU) names the device tensors made there report,
    so a game's states are its own; a device that holds no generator (``meta``) is refused."""
    torch = pytest.importorskip("torch")
    from risk_env.train.device_train import resolve_device
    from risk_env.vector import VectorEnv

    for name in ("cpu:0", torch.device("cpu", 0)):
        env = VectorEnv(4, device=name, rules=RulesConfig(num_players=3))
        assert env.device == torch.device("cpu")
        assert env.reset(seed=1).observation.shape == (4, env.observation_size)
    assert resolve_device("cpu:0") == torch.device("cpu")
    with pytest.raises(ConfigError, match="^device='meta' is not available; available here: cpu"):
        VectorEnv(4, device="meta")
    with pytest.raises(ConfigError, match=r"^ppo\.device='meta' is not available; .* \(or auto\)$"):
        resolve_device("meta")


def test_numpy_batch_sizes_and_infinite_shaping():
    pytest.importorskip("torch")
    from risk_env.envs.single_agent import RiskSingleAgentEnv
    from risk_env.vector import VectorEnv
    from risk_env.vector.learner import LearnerEnv

    assert VectorEnv(np.int64(3), rules=RulesConfig(num_players=2)).num_envs == 3
    assert type(LearnerEnv(np.int64(2), num_players=2).num_envs) is int
    for shaping in (float("inf"), float("nan"), -1.0, "1"):
        with pytest.raises(ConfigError, match="^shaping must be a finite number >= 0, got "):
            LearnerEnv(2, num_players=2, shaping=shaping)
        with pytest.raises(ConfigError, match="^shaping must be a finite number >= 0, got "):
            RiskSingleAgentEnv(num_players=2, shaping=shaping)
    # both envs read one check (risk_env.errors.check_number): numpy numbers in, bools out
    for make in (lambda **kw: LearnerEnv(2, num_players=2, **kw), lambda **kw: RiskSingleAgentEnv(num_players=2, **kw)):
        env = make(shaping=np.float32(0.5), shaping_gamma=np.float32(0.75))
        assert (env.shaping, env.shaping_gamma) == (0.5, 0.75) and type(env.shaping_gamma) is float
        with pytest.raises(ConfigError, match=r"^shaping_gamma must be a number in \(0, 1\] .*, got True$"):
            make(shaping_gamma=True)
        with pytest.raises(ConfigError, match=r"^shaping must be a finite number >= 0, got 1000000000000000000000"):
            make(shaping=10**400)  # (no float holds it: an OverflowError before)


def test_vector_game_observe_refuses_seats_out_of_range_and_takes_any_integer_dtype():
    torch = pytest.importorskip("torch")
    from risk_env.vector import VectorGame

    g = VectorGame(RulesConfig(num_players=3), seed=0)
    s = g.new_games(4)
    seats = torch.tensor([0, 1, 2, 1])
    assert torch.equal(g.observe(s, seats.to(torch.uint8)), g.observe(s, seats))
    for bad in (3, -1):
        with pytest.raises(ConfigError, match=f"^seat must hold seats 0..2, got {bad}$"):
            g.observe(s, torch.tensor([0, 1, bad, 1]))
        with pytest.raises(ConfigError, match=f"^seat must hold seats 0..2, got {bad}$"):
            g.observe_graph(s, torch.tensor([0, 1, bad, 1]))


def test_learner_env_past_max_opponent_steps_asks_for_a_reset():
    """The guard raised a bare RuntimeError and left the env mid-step, still taking steps against a stale mask (the
    learner's ids played where an opponent was to act)."""
    torch = pytest.importorskip("torch")
    from risk_env.errors import ResetNeededError, RiskError
    from risk_env.vector.learner import LearnerEnv

    env = LearnerEnv(4, seed=8, opponents="aggressive", num_players=2, map="small", setup="random", max_opponent_steps=1)
    gen = torch.Generator().manual_seed(0)
    refusal = (
        r"^opponents made 1 engine steps \(max_opponent_steps\) without a learner's turn coming; the games are left "
        r"mid-step: call reset\(\)$"
    )
    with pytest.raises(RiskError, match=refusal):  # (an opponent's turn is more than one engine step)
        out = env.reset(seed=0)
        for _ in range(200):
            out = env.step(torch.multinomial(out.action_mask.float(), 1, generator=gen)[:, 0])
    with pytest.raises(ResetNeededError):
        env.step(torch.zeros(4, dtype=torch.int64))
    env.max_opponent_steps = 100_000
    assert env.reset(seed=0).action_mask.any(1).all()  # a reset starts afresh


def test_learner_env_checks_its_opponents_ids_and_refuses_non_tensors():
    torch = pytest.importorskip("torch")
    from risk_env.errors import IllegalActionError, ResetNeededError
    from risk_env.vector.learner import LearnerEnv

    def territory_zero(s, mask, rows):  # an opponent that ignores its mask
        return torch.zeros(mask.shape[0], dtype=torch.int64)

    env = LearnerEnv(4, seed=0, opponents=[territory_zero], num_players=2, map="small", setup="random", learner_seat=0)
    out = env.reset()
    refusal = r"^opponent policy 'territory_zero' chose id 0 in slot \d \(seat 1\); legal ids"
    with pytest.raises(IllegalActionError, match=refusal):
        for _ in range(40):  # the learner ends its turn where it can, so the opponent is soon to act
            end = env.num_actions - 1
            out = env.step(torch.where(out.action_mask[:, end], end, out.action_mask.long().argmax(1)))
    with pytest.raises(ResetNeededError):
        env.step(torch.zeros(4, dtype=torch.int64))

    def floats(s, mask, rows):
        return torch.zeros(mask.shape[0])

    env = LearnerEnv(4, seed=0, opponents=[floats], num_players=2, map="small", setup="random", learner_seat=0)
    with pytest.raises(IllegalActionError, match=r"^opponent policy 'floats' returned \(4,\) torch.float32; a batched policy"):
        out = env.reset()
        for _ in range(40):
            end = env.num_actions - 1
            out = env.step(torch.where(out.action_mask[:, end], end, out.action_mask.long().argmax(1)))
    env = LearnerEnv(4, seed=0, num_players=2)
    env.reset()
    for bad in (None, "abc", [[1], [1, 2]]):
        with pytest.raises(IllegalActionError, match=r"^actions must be an integer tensor of shape \(4,\), got "):
            env.step(bad)
        with pytest.raises(ConfigError, match=r"^slots must be a bool tensor of shape \(4,\), got "):
            env.reset_slots(bad)
        if bad is not None:  # (active=None: every slot)
            with pytest.raises(ConfigError, match=r"^active must be a bool tensor of shape \(4,\), got "):
                env.step(env.last.action_mask.long().argmax(1), active=bad)


def test_evaluate_takes_numpy_counts_and_refuses_bools_and_a_single_spec():
    res = risk_env.evaluate(["random", "random"], num_games=np.int64(2), workers=np.int64(1), map="small", progress=False)
    assert res.num_games == 2 and type(res.workers) is int
    for kw, name in (
        (dict(workers=True), "workers"),
        (dict(max_turn_steps=True), "max_turn_steps"),
        (dict(num_games=True), "num_games"),
    ):
        with pytest.raises(ConfigError, match=f"^{name} must be an integer, got True$"):
            risk_env.evaluate(["random", "random"], progress=False, **kw)
    with pytest.raises(ConfigError, match="^agents must be a list of specs, one per seat, got the single spec 'balanced'"):
        risk_env.evaluate("balanced")


def test_a_record_with_a_numpy_seed_saves_as_json(tmp_path):
    import dataclasses

    from risk_env.agents import RandomAgent
    from risk_env.records.record import GameRecord
    from risk_env.tools.match import play_match

    rec = play_match(
        risk_env.env(num_players=2, map="small"), [RandomAgent(0), RandomAgent(1)], seed=4, max_steps=20, record=True
    ).record
    path = dataclasses.replace(rec, seed=np.int64(4)).save(tmp_path / "r.json")
    assert GameRecord.load(path).seed == 4


def test_training_config_layer_widths_and_whole_timesteps():
    pytest.importorskip("pydantic")
    from risk_env.train.config import TrainConfig

    for widths in ([64, -1], [0]):
        with pytest.raises(ConfigError, match=r"ppo\.net_arch\.\d: Input should be greater than or equal to 1"):
            TrainConfig.from_dict({"ppo": {"net_arch": widths}})
    assert TrainConfig.from_dict({"ppo": {"net_arch": [8]}}).ppo.net_arch == [8]
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from risk_env.tools.cli import app

    r = CliRunner().invoke(app, ["train", "--timesteps", "2.9", "--out", "never-written"])
    assert r.exit_code == 2 and "error: --timesteps must be a whole number of steps (2e6 is one), got 2.9" in r.output
    for typed, message in [  # (named as typed; inf was "1 or more", 1e12 + 0.5 "a whole number ..., got 1e+12")
        ("1e30", "at most 1e+12, got 1e+30"),
        ("inf", "at most 1e+12, got inf"),
        ("1000000000000.5", "at most 1e+12, got 1000000000000.5"),
        ("-1", "1 or more, got -1"),
        ("0", "1 or more, got 0"),
        ("nan", "a number of steps, got nan"),
    ]:
        r = CliRunner().invoke(app, ["train", "--timesteps", typed, "--out", "never-written"])
        assert r.exit_code == 2 and f"error: --timesteps must be {message}\n" in r.output, (typed, r.output)
    assert not os.path.exists("never-written")


def test_the_sb3_face_refuses_actions_of_another_shape_or_uint64_or_masked():
    pytest.importorskip("stable_baselines3")
    from risk_env.errors import IllegalActionError, ResetNeededError
    from risk_env.vector.sb3 import VectorSB3Env

    env = VectorSB3Env(4, seed=0, num_players=2, map="small")
    env.reset()
    for bad, why in (
        (np.zeros((2, 2), dtype=np.int64), r"^actions must have shape \(4,\), one id per slot, got \(2, 2\)$"),
        (np.zeros((1, 4), dtype=np.int64), r"got \(1, 4\)$"),
        # (taken and flattened before; SB3 passes (B,) for a Discrete space, and a column is no batch of ids)
        (np.zeros((4, 1), dtype=np.int64), r"got \(4, 1\)$"),
        (np.zeros(4, dtype=np.uint64), "int64 or narrower"),
        # (its mask was dropped and the hidden value played)
        (np.ma.masked_array(np.zeros(4, dtype=np.int64), mask=[1, 0, 0, 0]), "got a numpy masked array"),
    ):
        with pytest.raises(IllegalActionError, match=why):
            env.step_async(bad)
        with pytest.raises(ResetNeededError):  # nothing kept for step_wait
            env.step_wait()
    env.step_async(env.action_masks().argmax(1))  # (B,) ids play
    obs, *_ = env.step_wait()
    assert obs.shape == (4, env.observation_space.shape[0])


def test_a_record_whose_ended_differs_from_the_replay_is_refused(tmp_path):
    import json

    from risk_env.agents import RandomAgent
    from risk_env.records.record import GameRecord, RecordError
    from risk_env.tools.match import play_match

    won = play_match(risk_env.env(num_players=2, map="small"), [RandomAgent(0), RandomAgent(1)], seed=0, record=True).record
    cut = play_match(
        risk_env.env(num_players=2, map="small"), [RandomAgent(0), RandomAgent(1)], seed=0, max_steps=30, record=True
    ).record
    assert won.result["ended"] == "win" and cut.result["ended"] == "unfinished"
    for rec, bad, message in (
        (won, "turn_limit", "replaying the record ends in a win"),
        (cut, "win", "replaying the record ends in a game still in progress"),
        (won, 7, r"result 'ended' must be one of 'win', .*, got 7$"),  # (refused on reading, before the replay)
        (cut, "gave up", r"result 'ended' must be one of 'win', .*, got 'gave up'$"),
    ):
        data = rec.to_dict()
        data["result"]["ended"] = bad
        path = tmp_path / "r.json"
        path.write_text(json.dumps(data))
        with pytest.raises(RecordError, match=message):
            GameRecord.load(path)
    GameRecord.load(won.save(tmp_path / "ok.json"))


def test_a_game_of_a_preset_name_is_refused_with_the_way_to_make_it() -> None:
    # (Game("expert") was an AttributeError: 'str' object has no attribute 'map')
    with pytest.raises(ConfigError) as info:
        Game("expert")  # type: ignore[arg-type]
    assert str(info.value) == "Game takes a RulesConfig or None, got str (a preset: Game(RulesConfig.from_preset('expert')))"
    with pytest.raises(ConfigError, match=r"^Game takes a RulesConfig or None, got dict$"):
        Game({"num_players": 3})  # type: ignore[arg-type]
    assert Game(RulesConfig.from_preset("expert")).config.num_players == 4


# ---------------------------------------------------------------- a Move's fields, a position of another game
_INT = "must be an integer (a Python or numpy int, not a bool)"


@pytest.mark.parametrize(
    "build,message",
    [
        # (place 1.5 was legal and left to_place a float; fortify 1.5 lost an army; attack 1.5 left att_dice=1.5)
        (lambda: risk_env.Move.place(0, 1.5), f"Move.count of a PLACE move (armies) {_INT}, got 1.5 (float)"),
        (lambda: risk_env.Move.fortify(0, 1, 1.5), f"Move.count of a FORTIFY move (armies) {_INT}, got 1.5 (float)"),
        (lambda: risk_env.Move.attack(0, 1, 1.5), f"Move.count of an ATTACK move (dice) {_INT}, got 1.5 (float)"),
        (lambda: risk_env.Move.attack(0.5, 1, 2), f"Move.src of an ATTACK move (a territory id) {_INT}, got 0.5 (float)"),
        (
            lambda: risk_env.Move.attack(np.float64(0), 1, 2),
            f"Move.src of an ATTACK move (a territory id) {_INT}, got np.float64(0.0) (float64)",
        ),
        (lambda: risk_env.Move.claim("Alaska"), f"Move.src of a CLAIM move (a territory id) {_INT}, got 'Alaska' (str)"),
        (lambda: risk_env.Move.claim(None), f"Move.src of a CLAIM move (a territory id) {_INT}, got None (NoneType)"),
        (lambda: risk_env.Move.claim(True), f"Move.src of a CLAIM move (a territory id) {_INT}, got True (bool)"),
        (lambda: risk_env.Move.place(0, "2"), f"Move.count of a PLACE move (armies) {_INT}, got '2' (str)"),
        (lambda: risk_env.Move.place(0, True), f"Move.count of a PLACE move (armies) {_INT}, got True (bool)"),
        (
            lambda: risk_env.Move.fortify(0, 1.0, 2),
            f"Move.dst of a FORTIFY move (a territory id) {_INT}, got 1.0 (float)",
        ),
        (
            lambda: risk_env.Move.trade([0.5, 1, 2]),
            f"Move.cards of a TRADE move holds 0.5 (float): each card id {_INT}",
        ),
        (
            lambda: risk_env.Move.trade("abc"),
            "Move.cards of a TRADE move must be a tuple or list of card ids (integers), got 'abc' (str)",
        ),
        (
            lambda: risk_env.Move.trade([0, 1, 2], bonus=None),
            f"Move.bonus of a TRADE move (a territory id, or -1 for none) {_INT}, got None (NoneType)",
        ),
        (
            lambda: risk_env.Move(risk_env.MoveKind.END_TURN, src=1.5),
            f"Move.src of an END_TURN move (a territory id) {_INT}, or None (an END_TURN move does not use it), got 1.5 (float)",
        ),
        (  # (the stars trade uses count: it offered None and said the count was unused; None made a card-less set trade)
            lambda: risk_env.Move.trade_stars(1.5),
            f"Move.count of a TRADE move (the star total of a stars trade) {_INT}, got 1.5 (float)",
        ),
        (
            lambda: risk_env.Move.trade_stars(None),  # type: ignore[arg-type]
            f"Move.count of a TRADE move (the star total of a stars trade) {_INT}, got None (NoneType)",
        ),
        (
            lambda: risk_env.Move(99),
            "Move.kind must be a MoveKind (CLAIM, PLACE, PLACE_NEUTRAL, TRADE, ATTACK, BLITZ, END_ATTACK, DEFEND, OCCUPY, "
            "FORTIFY, END_TURN, REROLL, SIX, KEEP_ROLL, CAPITAL) or its integer value 0..14, got 99 (int)",
        ),
    ],
)
def test_a_move_whose_fields_are_not_integers_is_refused_when_built(build, message):
    with pytest.raises(risk_env.InvalidMoveError) as info:
        build()
    assert str(info.value) == message


def test_numpy_integers_and_none_in_unused_fields_make_the_same_moves():
    Move, MoveKind = risk_env.Move, risk_env.MoveKind
    m = Move.attack(np.int64(3), np.int32(5), np.uint8(2))
    assert m == Move.attack(3, 5, 2) and hash(m) == hash(Move.attack(3, 5, 2))
    assert [type(v) for v in (m.src, m.dst, m.count, m.bonus)] == [int] * 4
    assert Move(MoveKind.END_TURN, None, None, None, None, None) == Move.end_turn()
    assert Move(4, 3, 5, 2) == m and type(Move(4, 3, 5, 2).kind) is MoveKind
    t = Move.trade(np.array([7, 2, 4]), np.int64(9))
    assert t.cards == (2, 4, 7) and [type(c) for c in t.cards] == [int] * 3 and type(t.bonus) is int


def test_legality_and_apply_see_only_well_formed_moves():
    # (the float count was legal, and apply made to_place 2.5 and legal_moves a TypeError)
    g = Game(RulesConfig(num_players=3, setup="random"))
    s = g.new_game(7)
    mine = int(np.flatnonzero(s.owner == s.player)[0])
    before = s.copy()
    with pytest.raises(risk_env.InvalidMoveError):
        g.is_legal(s, risk_env.Move.place(mine, 1.5))
    assert s == before
    g.apply(s, risk_env.Move.place(np.int64(mine), np.int64(2)))
    assert s.to_place == before.to_place - 2 and type(s.to_place) is int
    assert s.armies[mine] == before.armies[mine] + 2
    assert g.legal_moves(s) and s.to_dict()


def test_a_position_of_another_game_is_refused_before_it_is_played():
    # (a 9-territory game played a 42-territory position, and a 2-player game a 3-player one)
    small = Game(RulesConfig(num_players=2, two_player="none", map="small", setup="random"))
    classic2 = Game(RulesConfig(num_players=2, two_player="none", setup="random"))
    classic3 = Game(RulesConfig(num_players=3, setup="random"))
    s2, s3 = classic2.new_game(1), classic3.new_game(1)
    cases = [
        (
            small,
            s2,
            classic2,
            "this position has 42 territories and 2 players; this game has 9 territories (map 'small') and 2 players: "
            "play a position with the Game of the rules that made it",
        ),
        (
            classic2,
            s3,
            classic3,
            "this position has 42 territories and 3 players; this game has 42 territories (map 'classic') and 2 players: "
            "play a position with the Game of the rules that made it",
        ),
    ]
    for game, s, own, message in cases:
        assert game.invariant_violations(s)  # (the whole-position check saw it; the moves did not)
        move = own.legal_moves(s)[0]
        before = s.copy()
        for name, args in (
            ("legal_moves", (s,)),
            ("is_legal", (s, move)),
            ("check", (s, move)),
            ("apply", (s, move)),
            ("step", (s, move)),
        ):
            with pytest.raises(StateError) as info:
                getattr(game, name)(*args)
            assert str(info.value) == message
            assert s == before
