"""The ecosystem faces of the learner-seat env beyond their recipes (tests/test_clients.py): partial resets,
refusals, the opponents they take."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env.errors import ConfigError

SMALL: dict[str, Any] = dict(map="small", setup="random", num_players=2, turn_limit=30)


def test_torchrl_partial_reset_of_a_running_episode_starts_a_new_game() -> None:
    """TorchRL's StepCounter truncates episodes of its own; the collector's partial reset of those slots must start
    new games there (before: the old game went on), while slots whose game ended keep the game already waiting."""
    pytest.importorskip("torchrl", reason="needs the clients extra: pip install 'risk_env[clients]'")
    from torchrl.envs import ActionMask, Compose, StepCounter, TransformedEnv

    from risk_env.vector.torchrl_env import TorchRLVectorEnv

    base = TorchRLVectorEnv(8, device=DEVICE, seed=0, opponents="aggressive", **SMALL)
    env = TransformedEnv(base, Compose(ActionMask(), StepCounter(max_steps=3)))
    learner = base.learner_env
    td = env.reset()
    cut = 0
    for _ in range(7):
        started = learner.games_started.clone()
        td, td_next = env.step_and_maybe_reset(env.rand_action(td))
        done = td["next", "done"][:, 0]
        cut += int((td["next", "step_count"][:, 0] == 3).sum())
        # a new game in every slot that reported done, and only there
        assert torch.equal(learner.games_started - started, done.long())
        assert bool((td_next["step_count"][done] == 0).all())
        assert torch.equal(td_next["observation"], learner.last.observation)  # type: ignore[union-attr]
        td = td_next
    assert cut >= 8  # StepCounter cut every slot at least once


def test_torchrl_reset_takes_a_seed_as_gymnasium_does_and_refuses_other_keywords() -> None:
    """reset(seed=s) is set_seed(s) and a full reset (before, the seed was dropped and the games differed); another
    keyword is refused and changes nothing."""
    pytest.importorskip("torchrl", reason="needs the clients extra: pip install 'risk_env[clients]'")
    from risk_env.vector.torchrl_env import TorchRLVectorEnv

    env = TorchRLVectorEnv(4, device=DEVICE, seed=0, opponents="aggressive", **SMALL)
    td = env.reset(seed=5)
    first = td["observation"].clone()
    env.step(td.set("action", td["action_mask"].float().multinomial(1)[:, 0]))  # (a legal id in every slot)
    assert torch.equal(env.reset(seed=5)["observation"], first)
    assert not torch.equal(env.reset(seed=6)["observation"], first)
    env.set_seed(5)
    assert torch.equal(env.reset()["observation"], first)  # (the same games as set_seed's)
    env.set_seed(5)
    assert torch.equal(env.reset(seed=None)["observation"], first)  # (no new seed: set_seed's stays; it was dropped)
    before = env.learner_env.last.observation.clone()  # type: ignore[union-attr]
    with pytest.raises(ConfigError) as info:
        env.reset(foo="bar")
    assert str(info.value) == "TorchRLVectorEnv.reset takes a tensordict (with '_reset' for some slots) and seed=, got foo="
    with pytest.raises(ConfigError, match="seed"):
        env.reset(seed=-1)
    from tensordict import TensorDict

    some = TensorDict({"_reset": torch.tensor([[True], [False], [False], [False]], device=DEVICE)}, batch_size=[4])
    with pytest.raises(ConfigError, match=r"seed= starts every slot anew; give it without a '_reset' entry"):
        env.reset(some, seed=5)  # (it reset every game but returned the one slot's observation)
    assert torch.equal(env.learner_env.last.observation, before)  # type: ignore[union-attr]


def _legal(info_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in info_mask])


def test_gymnasium_reset_mask_resets_those_slots_alone() -> None:
    """reset(options={"reset_mask": mask}) (Gymnasium's partial reset; before, every slot was reset): new games in
    the masked slots, the others untouched; a finished slot's waiting game is kept. Bad options are refused."""
    from risk_env import ConfigError, ResetNeededError
    from risk_env.vector.gym_vector import GymnasiumVectorEnv

    envs = GymnasiumVectorEnv(6, seed=1, opponents="aggressive", **SMALL)
    with pytest.raises(ResetNeededError):
        envs.step(np.zeros(6, dtype=np.int64))
    with pytest.raises(ResetNeededError):
        envs.reset(options={"reset_mask": np.ones(6, dtype=bool)})
    obs, info = envs.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(15):
        obs, _r, _te, _tr, info = envs.step(_legal(info["action_mask"], rng))
    learner = envs.learner_env
    started = learner.games_started.clone()
    m = np.array([True, False, True, False, False, False])
    state_before = {k: v.clone() for k, v in learner.venv.state.fields().items()}  # type: ignore[union-attr]
    new_obs, new_info = envs.reset(options={"reset_mask": m})
    assert (learner.games_started - started).tolist() == m.astype(int).tolist()
    assert np.array_equal(new_obs[~m], obs[~m]) and np.array_equal(new_info["action_mask"][~m], info["action_mask"][~m])
    assert not np.array_equal(new_obs[m], obs[m])
    s = learner.venv.state
    kept = ~torch.as_tensor(m, device=DEVICE)
    assert s is not None and all(torch.equal(v[kept], getattr(s, k)[kept]) for k, v in state_before.items())
    assert np.array_equal(new_obs, learner.last.observation.cpu().numpy())  # type: ignore[union-attr]
    for options, what in [
        ({"reset_mask": np.ones(5, dtype=bool)}, "reset_mask"),
        ({"reset_mask": np.zeros(6, dtype=bool)}, "reset_mask"),
        ({"reset_mask": np.ones(6, dtype=int)}, "reset_mask"),
        ({"state": 3}, "unknown reset option"),
    ]:
        with pytest.raises(ConfigError, match=what):
            envs.reset(options=options)
    # options that are no dict raised TypeError or ValueError from dict(options)
    for options, given in [([1], "list [1]"), ("abc", "str 'abc'"), (5, "int 5"), ((("reset_mask", m),), "tuple")]:
        with pytest.raises(ConfigError) as e:
            envs.reset(options=options)  # type: ignore[arg-type]
        assert str(e.value).startswith(
            f"options must be a dict or None (this env takes options={{'reset_mask': mask}}), got {given}"
        )
    assert np.array_equal(envs.reset(options={"reset_mask": m})[0][~m], new_obs[~m])  # and a dict still works
    with pytest.raises(ConfigError, match="seed"):
        envs.reset(seed=3, options={"reset_mask": m})
    with pytest.raises(ConfigError, match="final_observation"):
        GymnasiumVectorEnv(2, final_observation=True, **SMALL)


def test_gymnasium_step_refuses_what_is_not_one_id_per_slot_and_changes_nothing() -> None:
    """None, text, a ragged list, floats, bools or another shape: IllegalActionError naming the shape and dtype wanted
    (None, text and a ragged list raised torch's TypeError or numpy's ValueError), the games and the env unchanged.
    Also while a slot waits to start its next episode (next-step autoreset), where a bool array used to be played
    as the ids 0 and 1."""
    from risk_env import IllegalActionError
    from risk_env.vector.gym_vector import GymnasiumVectorEnv

    envs = GymnasiumVectorEnv(4, seed=3, opponents="aggressive", **dict(SMALL, turn_limit=3))
    obs, info = envs.reset(seed=3)
    rng = np.random.default_rng(2)
    learner = envs.learner_env
    want = r"actions must be an integer array of shape \(4,\), one id in 0\.\.\d+ per sub-environment, got "
    cases = [
        (None, "None"),
        ("x", "str 'x'"),
        ([[1, 2], [3]], r"list \[\[1, 2\], \[3\]\]"),
        ([1, 2, 3], r"shape \(3,\) dtype int64"),
        (np.zeros((4, 1), dtype=np.int64), r"shape \(4, 1\) dtype int64"),
        (np.zeros(4), r"shape \(4,\) dtype float64"),
        (np.ones(4, dtype=bool), r"shape \(4,\) dtype bool"),
        (np.array(["1", "2", "3", "4"]), "ndarray"),
    ]
    for pending in (False, True):
        while envs._pending.any() != pending:
            obs, _r, _te, _tr, info = envs.step(_legal(info["action_mask"], rng))
        state = {k: v.clone() for k, v in learner.venv.state.fields().items()}  # type: ignore[union-attr]
        generator = learner.venv.game.generator.get_state()
        waiting, mask, started = envs._pending.copy(), envs.action_masks(), learner.games_started.clone()
        for actions, got in cases:
            with pytest.raises(IllegalActionError, match=want + got):
                envs.step(actions)
        s = learner.venv.state
        assert s is not None and all(torch.equal(v, getattr(s, k)) for k, v in state.items())
        assert torch.equal(learner.venv.game.generator.get_state(), generator)
        assert np.array_equal(envs._pending, waiting) and np.array_equal(envs.action_masks(), mask)
        assert torch.equal(learner.games_started, started)
    obs, *_ = envs.step(_legal(info["action_mask"], rng))  # and it plays on
    assert obs.shape == (4, envs.single_observation_space.shape[0])


def test_gymnasium_step_takes_unsigned_ids_and_refuses_masked_arrays() -> None:
    """The step's docstring said "any integer array" but uint16/32/64 were refused: unsigned ids play as the same
    signed ids, one beyond int64 is out of range (not wrapped to a negative id). A numpy masked array was played with
    its mask dropped (the masked entries' hidden values taken); it is refused, nothing changed."""
    from risk_env import IllegalActionError
    from risk_env.vector.gym_vector import GymnasiumVectorEnv

    def run(convert: Any) -> list[np.ndarray]:
        envs = GymnasiumVectorEnv(4, seed=5, opponents="aggressive", **SMALL)
        _obs, info = envs.reset(seed=5)
        rng = np.random.default_rng(5)
        seen = []
        for _ in range(6):
            obs, reward, *_rest, info = envs.step(convert(_legal(info["action_mask"], rng)))
            seen += [obs, reward]
        return seen

    plain = run(lambda a: a)
    for convert in (
        lambda a: a.astype(np.uint8),
        lambda a: a.astype(np.uint16),
        lambda a: a.astype(np.uint32),
        lambda a: a.astype(np.uint64),
        lambda a: torch.as_tensor(a.astype(np.uint32)),
    ):
        assert all(np.array_equal(x, y) for x, y in zip(run(convert), plain, strict=True))

    envs = GymnasiumVectorEnv(4, seed=5, opponents="aggressive", **SMALL)
    _obs, info = envs.reset(seed=5)
    learner = envs.learner_env
    state = {k: v.clone() for k, v in learner.venv.state.fields().items()}  # type: ignore[union-attr]
    legal = _legal(info["action_mask"], np.random.default_rng(0))
    n = envs.single_action_space.n
    huge = legal.astype(np.uint64)
    huge[2] = 2**64 - 1  # (as int64: -1)
    with pytest.raises(IllegalActionError) as e:
        envs.step(huge)
    assert str(e.value) == f"action {2**64 - 1} is out of range in slot 2: ids are 0..{n - 1}"
    far = legal.astype(np.uint32)
    far[1] = n
    with pytest.raises(IllegalActionError) as e:
        envs.step(far)
    assert str(e.value) == f"action {n} is out of range in slot 1: ids are 0..{n - 1}"
    for masked in (np.ma.masked_array(legal, mask=[True, False, False, False]), np.ma.masked_array(legal)):
        with pytest.raises(IllegalActionError) as e:
            envs.step(masked)
        assert str(e.value).endswith("got a numpy masked array (its mask would be dropped): give a plain array")
    s = learner.venv.state
    assert s is not None and all(torch.equal(v, getattr(s, k)) for k, v in state.items())
    assert np.array_equal(envs.action_masks(), info["action_mask"].astype(bool))


def test_gymnasium_refuses_an_id_out_of_range_in_a_slot_whose_action_is_ignored() -> None:
    """next_step autoreset: the step after a slot's episode ends ignores its action, but an id outside 0..N-1 there
    was taken silently; it is refused as in any slot, nothing changed."""
    from risk_env import IllegalActionError
    from risk_env.vector.gym_vector import GymnasiumVectorEnv

    envs = GymnasiumVectorEnv(4, seed=2, opponents="aggressive", **{**SMALL, "turn_limit": 3})
    _obs, info = envs.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(500):
        _obs, _r, term, trunc, info = envs.step(_legal(info["action_mask"], rng))
        if (term | trunc).any():
            break
    ended = int(np.flatnonzero(term | trunc)[0])
    n = envs.single_action_space.n
    state = {k: v.clone() for k, v in envs.learner_env.venv.state.fields().items()}  # type: ignore[union-attr]
    a = _legal(info["action_mask"], rng)
    for bad in (999, -1):
        a[ended] = bad
        with pytest.raises(IllegalActionError) as e:
            envs.step(a)
        assert str(e.value) == f"action {bad} is out of range in slot {ended}: ids are 0..{n - 1}"
    s = envs.learner_env.venv.state
    assert s is not None and all(torch.equal(v, getattr(s, k)) for k, v in state.items())
    a[ended] = 0  # (any id in range: ignored there)
    envs.step(a)


def test_gymnasium_disabled_autoreset_waits_for_a_reset_mask() -> None:
    """autoreset_mode="disabled": a finished slot returns its last observation and waits for a masked reset; stepping
    it first is refused; RecordEpisodeStatistics counts the episodes."""
    import gymnasium
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    from risk_env import ResetNeededError
    from risk_env.vector.gym_vector import GymnasiumVectorEnv

    envs = RecordEpisodeStatistics(GymnasiumVectorEnv(8, seed=2, autoreset_mode="disabled", **dict(SMALL, turn_limit=3)))
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.DISABLED
    obs, info = envs.reset(seed=2)
    rng = np.random.default_rng(1)
    ended = refused = 0
    lengths = np.zeros(8, dtype=int)
    mine: list[int] = []
    for _ in range(120):
        obs, reward, terminated, truncated, info = envs.step(_legal(info["action_mask"], rng))
        lengths += 1
        done = terminated | truncated
        if done.any():
            ended += int(done.sum())
            mine += lengths[done].tolist()
            lengths[done] = 0
            with pytest.raises(ResetNeededError, match="have ended"):
                envs.step(_legal(info["action_mask"], rng))
            refused += 1
            obs, info = envs.reset(options={"reset_mask": done})
    assert ended > 8 and refused > 0
    assert list(envs.length_queue) == mine[-len(envs.length_queue) :]


def test_sb3_face_takes_batched_policies_and_learner_env_opponents() -> None:
    """VectorSB3Env: a batched policy object as `opponent` plays (before: an AttributeError mid-game, as it was
    called with observations); `opponents=` is LearnerEnv's (tuples per seat), as docs/clients.md says of every
    face; what the face does not offer, and bad actions, are refused with the library's errors."""
    pytest.importorskip("stable_baselines3", reason="needs the train extra: pip install 'risk_env[train]'")
    from risk_env import ConfigError, IllegalActionError, ResetNeededError
    from risk_env.vector import VectorGame
    from risk_env.vector.agents import AggressivePolicy
    from risk_env.vector.sb3 import VectorSB3Env

    rules = dict(SMALL, num_players=3, turn_limit=12)
    game = VectorGame(device=DEVICE, **rules)  # a policy object for these rules
    rng = np.random.default_rng(2)
    for kwargs in (dict(opponent=AggressivePolicy(game)), dict(opponents=[("aggressive", "random")], learner_seat=None)):
        venv = VectorSB3Env(8, device=str(DEVICE), seed=3, **kwargs, **rules)  # type: ignore[arg-type]
        with pytest.raises(ResetNeededError):
            venv.action_masks()
        venv.reset()
        ended = 0
        for _ in range(80):
            _, _, done, _ = venv.step(_legal(venv.action_masks(), rng))
            ended += int(done.sum())
        assert ended > 0
    names = venv.learner_env.assignment.names  # type: ignore[union-attr]
    assert names == ["aggressive", "random"]
    seat, seating = venv.learner_env.learner_seat, venv.learner_env.seating
    for b in range(8):  # the tuple names the opponent seats in turn from the learner
        assert [int(seating[b, (int(seat[b]) + k) % 3]) for k in (1, 2)] == [0, 1]
    with pytest.raises(IllegalActionError, match="integer"):
        venv.step(np.full(8, 0.7))
    n = venv.venv.num_actions
    with pytest.raises(IllegalActionError) as err:
        venv.step(np.full(8, n + 3))
    assert str(err.value) == f"action {n + 3} is out of range in slot 0: ids are 0..{n - 1}"  # (it said "illegal")
    for kwargs, what in [
        (dict(opponent="random", opponents="random"), "not both"),
        (dict(opponent=3), "opponent must be"),
        (
            dict(opponent="nope"),
            "^the batched engine cannot play 'nope': no batched policy, pretrained agent or model file has that name",
        ),
        (dict(self_play=True), "self-play"),
        (dict(final_observation=True), "terminal_observation"),
        (dict(observation="graph"), "flat observation"),
    ]:
        with pytest.raises(ConfigError, match=what):
            VectorSB3Env(2, **kwargs, **rules)  # type: ignore[arg-type]


def test_sb3_face_plays_a_pretrained_network_named_as_opponent() -> None:
    """``VectorSB3Env(opponent="ppo-4p")`` was refused by a list of heuristic names of its own, though
    ``opponents="ppo-4p"`` was taken: both are read by ``risk_env.vector.specs.batched_policy``."""
    from risk_env.vector.network import NetworkPolicy
    from risk_env.vector.sb3 import VectorSB3Env

    venv = VectorSB3Env(2, device=str(DEVICE), opponent=[" PPO-4P", "balanced"], preset="fast", num_players=4)
    assignment = venv.learner_env.assignment
    assert assignment is not None and assignment.names == ["ppo-4p", "balanced"]
    assert isinstance(assignment.policies[0], NetworkPolicy)
    obs = venv.reset()
    assert obs.shape[0] == 2 and venv.action_masks().any(axis=1).all()


def test_sb3_face_refuses_reset_options_it_would_ignore() -> None:
    """VectorSB3Env.set_options kept any options and the next reset ignored them: they are refused, None and empty
    ones pass, and the env plays on."""
    from risk_env.vector.sb3 import VectorSB3Env

    venv = VectorSB3Env(2, device=str(DEVICE), opponent="random", preset="fast", num_players=2)
    for fine in (None, {}, [{}, {}]):
        venv.set_options(fine)
    bads = (({"learner_seat": 1}, " (unknown: learner_seat)"), ([{"a": 1}, {}], " (unknown: a)"), ("x", ""), (5, ""))
    for bad, unknown in (*bads, (0, ""), ([{}, {}, {}], ""), ([None, None], "")):
        with pytest.raises(ConfigError) as e:
            venv.set_options(bad)  # type: ignore[arg-type]
        assert str(e.value) == (
            f"VectorSB3Env takes no reset options, got {bad!r}{unknown}; its games are set by the constructor's rules, "
            "seat and opponents"
        )
    assert venv.reset().shape == (2, venv.observation_space.shape[0])
    venv.close()


def test_close_releases_the_games_and_a_reset_starts_new_ones() -> None:
    """close() did nothing on the batched faces and VectorEnv had none: the games' tensors stayed held (a GPU's
    memory in a notebook). Closed, each face refuses a step as before its first reset, and a reset plays on."""
    from risk_env.errors import ResetNeededError
    from risk_env.vector import VectorEnv
    from risk_env.vector.gym_vector import GymnasiumVectorEnv
    from risk_env.vector.sb3 import VectorSB3Env
    from risk_env.vector.torchrl_env import TorchRLVectorEnv

    venv = VectorEnv(4, device=str(DEVICE), **SMALL)
    out = venv.reset(seed=1)
    venv.close()
    venv.close()  # (twice is fine)
    assert venv.state is None
    with pytest.raises(ResetNeededError, match="no games in progress"):
        venv.step(out.action_mask.float().argmax(1))
    venv.step(venv.reset(seed=1).action_mask.float().argmax(1))

    gym = GymnasiumVectorEnv(4, device=str(DEVICE), **SMALL)
    _, info = gym.reset(seed=2)
    ids = np.asarray(info["action_mask"]).argmax(1)
    gym.close()
    assert gym.closed and gym.learner_env.venv.state is None
    with pytest.raises(ResetNeededError, match="no games in progress"):
        gym.step(ids)
    gym.reset(seed=2)
    gym.step(ids)

    sb3 = VectorSB3Env(4, device=str(DEVICE), opponent="random", **SMALL)
    sb3.reset()
    sb3.close()
    with pytest.raises(ResetNeededError, match="no games in progress"):
        sb3.action_masks()
    sb3.reset()
    assert sb3.action_masks().shape == (4, sb3.learner_env.num_actions)

    trl = TorchRLVectorEnv(4, device=str(DEVICE), **SMALL)
    trl.reset()
    trl.close()
    assert trl.is_closed and trl.learner_env.venv.state is None


def _faces() -> list[Any]:
    from risk_env.vector.gym_vector import GymnasiumVectorEnv

    faces: list[Any] = [GymnasiumVectorEnv]
    try:
        from risk_env.vector.torchrl_env import TorchRLVectorEnv
    except ImportError:  # (the clients extra)
        pass
    else:
        faces.append(TorchRLVectorEnv)
    return faces


def test_faces_take_a_numpy_integer_seat_and_refuse_an_opponent_of_the_wrong_call_when_made() -> None:
    # (np.int64(1) was refused as no seat; an (obs, mask) lambda passed and reset() raised a bare TypeError)
    for face in _faces():
        env = face(4, device=str(DEVICE), learner_seat=np.int64(1), **SMALL)
        env.reset(seed=0)
        assert env.learner_env.fixed_seat == 1 and env.learner_env.learner_seat.tolist() == [1] * 4
        with pytest.raises(ConfigError) as info:
            face(4, device=str(DEVICE), opponents=lambda obs, mask: mask.float().argmax(1), **SMALL)
        assert str(info.value) == (
            "an opponent policy is called as policy(state, mask, active) -> ids (three positional arguments), but "
            "<lambda> takes (obs, mask); a callable (obs, mask) -> ids is VectorSB3Env's opponent= form"
        )
        with pytest.raises(ConfigError, match="^learner_seat must be None \\(rotate\\) or a seat in 0..1, got np.int64\\(2\\)$"):
            face(4, device=str(DEVICE), learner_seat=np.int64(2), **SMALL)


def test_sb3_face_checks_each_opponent_form_against_its_own_call() -> None:
    pytest.importorskip("stable_baselines3", reason="needs the train extra: pip install 'risk_env[train]'")
    from risk_env.vector.sb3 import VectorSB3Env

    seen: list[tuple[int, ...]] = []

    def by_observation(obs, mask):  # type: ignore[no-untyped-def]
        seen.append(tuple(obs.shape))
        return mask.float().argmax(1)

    venv = VectorSB3Env(4, device=str(DEVICE), learner_seat=np.int64(1), opponent=by_observation, **SMALL)
    venv.reset()
    assert venv.learner == 1 and venv.learner_env.learner_seat.tolist() == [1] * 4
    assert seen and seen[0] == (4, venv.observation_space.shape[0])  # (it sees the flat observations)
    with pytest.raises(ConfigError) as info:  # (a batched policy's call given as opponent=: a TypeError at reset)
        VectorSB3Env(4, device=str(DEVICE), opponent=["random", lambda state, mask, active: mask.argmax(1)], **SMALL)
    assert str(info.value) == (
        "a callable opponent= is called as opponent(observation, mask) -> ids (two positional arguments), but "
        "<lambda> takes (state, mask, active); give a batched policy (state, mask, active) -> ids as opponents= instead"
    )
    with pytest.raises(ConfigError) as info:  # (LearnerEnv's form: the three-argument call)
        VectorSB3Env(4, device=str(DEVICE), opponents=by_observation, **SMALL)
    assert str(info.value) == (
        "an opponent policy is called as policy(state, mask, active) -> ids (three positional arguments), but "
        "by_observation takes (obs, mask); a callable (obs, mask) -> ids is VectorSB3Env's opponent= form"
    )
    env = VectorSB3Env(4, device=str(DEVICE), opponents=lambda state, mask, active: mask.float().argmax(1), **SMALL)
    env.reset()
    with pytest.raises(ConfigError, match="^learner_seat must be a seat number or None \\(rotate\\), got np.True_$"):
        VectorSB3Env(4, device=str(DEVICE), learner_seat=np.bool_(True), **SMALL)  # type: ignore[arg-type]
