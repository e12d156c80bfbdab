"""Property-based tests (hypothesis) of the batched engine's arguments: ``VectorEnv.reset``,
``reset_slots``, ``step`` and ``observe`` given values of every kind (tensors of each dtype and a
wrong shape, numpy arrays, lists, scalars, text, None, ids out of range or illegal). Each call
either works, or raises the library's own error (``ConfigError``, ``IllegalActionError``,
``ResetNeededError``) with the batch unchanged: every tensor of the state and the generator.

``RISK_FUZZ=20`` multiplies the example counts. The explicit cases are in tests/test_vector_errors.py.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from vector_support import DEVICE, one_torch_thread  # noqa: E402, F401 (the fixture applies to this module)

from risk_env import ConfigError, IllegalActionError  # noqa: E402
from risk_env.errors import ResetNeededError  # noqa: E402
from risk_env.vector import VectorEnv  # noqa: E402

SCALE = int(os.environ.get("RISK_FUZZ", "1"))
FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], print_blob=True)
OWN_ERRORS = (ConfigError, IllegalActionError, ResetNeededError)
B = 4
_ENVS: dict = {}


def _env(preset: str) -> VectorEnv:
    if preset not in _ENVS:
        _ENVS[preset] = VectorEnv(B, device=DEVICE, seed=1, preset=preset, num_players=3, map="small", turn_limit=30)
    return _ENVS[preset]


def _snapshot(env: VectorEnv) -> dict:
    assert env.state is not None
    return {**{k: v.clone() for k, v in env.state.fields().items()}, "_generator": env.game.generator.get_state()}


def _unchanged(env: VectorEnv, before: dict) -> None:
    assert env.state is not None
    for k, v in env.state.fields().items():
        assert torch.equal(v, before[k]), k
    assert torch.equal(env.game.generator.get_state(), before["_generator"])


DTYPES = [torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool, torch.float32, torch.float64]
SHAPES = [(B,), (B,), (B,), (B, 1), (1,), (), (B + 1,), (0,), (2, B)]


@st.composite
def values(draw, legal: torch.Tensor | None = None, n: int = 3):
    """An argument of any kind: a valid one (``legal`` ids, else bools for ``n=1``, seats for
    ``n=3``) a third of the time, otherwise near one or of another kind."""
    if draw(st.integers(0, 2)) == 0:
        if legal is not None:
            return legal.clone()
        if n == 1:
            return torch.tensor(draw(st.lists(st.booleans(), min_size=B, max_size=B)))
        return torch.tensor(draw(st.lists(st.integers(0, n - 1), min_size=B, max_size=B)), dtype=torch.int64)
    kind = draw(st.sampled_from(["tensor", "tensor", "tensor", "numpy", "list", "scalar", "other"]))
    shape = draw(st.sampled_from(SHAPES))
    dtype = draw(st.sampled_from(DTYPES))
    count = int(np.prod(shape)) if shape else 1
    base = legal.tolist() if legal is not None and shape == (B,) and draw(st.booleans()) else None
    if base is None:
        base = draw(
            st.lists(st.integers(-2, 200) if legal is not None else st.integers(-1, n + 1), min_size=count, max_size=count)
        )
    elif draw(st.booleans()):  # one id changed
        i = draw(st.integers(0, B - 1))
        base[i] = draw(st.integers(-2, 200))
    if kind == "tensor":
        t = torch.tensor(base).reshape(shape) if shape else torch.tensor(base[0])
        return t.to(dtype) if dtype != torch.bool else t != 0
    if kind == "numpy":
        return np.asarray(base).reshape(shape) if shape else np.int64(base[0])
    if kind == "list":
        return base
    if kind == "scalar":
        return draw(st.one_of(st.integers(-2, 200), st.floats(), st.booleans()))
    return draw(st.one_of(st.none(), st.text(max_size=3), st.just({"a": 1}), st.just(object())))


@settings(FUZZ, max_examples=150 * SCALE)
@given(data=st.data())
def test_step_arguments_work_or_change_nothing(data):
    env = _env(data.draw(st.sampled_from(["classic", "fast"]), label="preset"))
    if env.state is None:
        env.reset(seed=2)
    legal = env.game.action_mask(env.state).float().argmax(1).cpu()
    actions = data.draw(values(legal), label="actions")
    kwargs = {}
    if data.draw(st.booleans(), label="with active"):
        kwargs["active"] = data.draw(values(n=1), label="active")
    if data.draw(st.booleans(), label="with final_seat"):
        kwargs["final_seat"] = data.draw(values(), label="final_seat")
    before = _snapshot(env)
    try:
        out = env.step(actions, **kwargs)
    except OWN_ERRORS as e:
        event(f"refused: {type(e).__name__}")
        _unchanged(env, before)
        return
    event("stepped")
    assert out.action_mask.shape[0] == B and out.action_mask.any(1).all()  # every slot has a decision (autoreset)


@settings(FUZZ, max_examples=80 * SCALE)
@given(data=st.data())
def test_reset_slots_and_observe_arguments_work_or_change_nothing(data):
    env = _env("classic")
    if env.state is None:
        env.reset(seed=3)
    which = data.draw(st.sampled_from(["reset_slots", "observe", "reset"]), label="call")
    before = _snapshot(env)
    try:
        if which == "reset_slots":
            env.reset_slots(data.draw(values(n=1), label="slots"))
        elif which == "observe":
            env.observe(data.draw(values(), label="seat"))
        else:
            env.reset(seed=data.draw(st.one_of(st.integers(-3, 10), st.floats(), st.text(max_size=2), st.none()), label="seed"))
    except OWN_ERRORS as e:
        event(f"{which} refused: {type(e).__name__}")
        _unchanged(env, before)
        return
    event(f"{which} worked")
    if which == "observe":
        _unchanged(env, before)  # observing changes nothing


def test_before_reset_every_call_is_a_reset_needed_error():
    env = VectorEnv(2, device=DEVICE, seed=0, num_players=3, map="small")
    for call in (lambda: env.step(torch.zeros(2, dtype=torch.int64)), lambda: env.observe(torch.zeros(2, dtype=torch.int64))):
        with pytest.raises(ResetNeededError):
            call()
