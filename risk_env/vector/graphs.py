"""CUDA graphs of the batched engine: a step and the next observation replayed as two recorded
graphs instead of some 700 separate kernel launches (``VectorEnv(cuda_graph=True)``).

A recorded graph replays fixed kernels on fixed tensors, so it needs a step without host checks
and with shapes that never change: the ``static`` step (:class:`~risk_env.vector.engine.VectorGame`),
whose results are those of the default step. :class:`GraphRunner` keeps every tensor in place:

* the state's tensors (a step's new values are copied back into them at the end of the graph,
  after a copy of the position before it);
* the step's chance (:class:`~risk_env.vector.dice.Draws`, drawn again into the same tensor before
  each replay, outside the graph: the same numbers as the default step draws);
* the outputs (rewards, wins, truncations; the mask, the observations, the seats to act).

Two things stay outside the graphs, on the host: auto-reset (new games go in with
:meth:`BatchState.put`), and a blitz whose armies exceed the blitz table, which a graph cannot
resolve (it rolls roll by roll, a host check per roll). The step graph records whether one
happened (``VectorGame.beyond_table``); after the replay the runner reads that flag (one host
check per step) and, in the rare step that had one, puts the position back and plays the step
again without the graph, with the same draws: the same results either way.

With ``capture=False`` the runner plays the same bodies without recording them, as the graphs
would (no host checks: a blitz beyond the table takes the same way back), on any device: the
tests run it on the CPU against the default step. The recording itself needs a CUDA device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch

from .state import BatchState

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = ["GraphRunner"]


class GraphRunner:
    """One batch size's step and observation, recorded as CUDA graphs (module docstring).

    Args:
        game: a ``static`` :class:`~risk_env.vector.engine.VectorGame`.
        state: the positions; their tensors are the graphs' inputs and outputs from now on.
        present: ``present(state) -> dict of tensors``: what the env hands out after a step (the
            mask, the observation, the seats to act); recorded as the second graph.
        capture: record the graphs (a CUDA device); False plays the bodies directly.

    Raises:
        ConfigError: ``game`` is not static, or ``capture`` on a device that is not CUDA.
    """

    def __init__(
        self, game: VectorGame, state: BatchState, present: Callable[[BatchState], dict[str, Any]], capture: bool = True
    ) -> None:
        from ..errors import ConfigError

        if not game.static:
            raise ConfigError("CUDA graphs need the static step: VectorGame(static=True)")
        if capture and game.device.type != "cuda":
            raise ConfigError(f"cuda_graph=True needs a CUDA device; this engine is on {game.device}")
        self.game = game
        self.state = state
        self.capture = capture
        B = state.batch_size
        dev = game.device
        self.B = B
        self.inputs = dict(state.fields())
        self.snapshot = {k: v.clone() for k, v in self.inputs.items()}
        self.action = torch.zeros(B, dtype=torch.int64, device=dev)
        self.active = torch.ones(B, dtype=torch.bool, device=dev)
        self.draws = game.draws(B, draw=False)  # (drawn before each step, as the default step draws)
        n = game.n
        self.out = {
            "rewards": torch.zeros(B, n, dtype=torch.float32, device=dev),
            "won": torch.zeros(B, dtype=torch.bool, device=dev),
            "truncated": torch.zeros(B, dtype=torch.bool, device=dev),
            "eliminated": torch.zeros(B, n, dtype=torch.bool, device=dev),
        }
        self._present_fn = present
        self.replayed = 0  # steps played again without the graph (a blitz beyond the table)
        self.shown: dict[str, Any] = {}
        self._step_graph: Any = None
        self._present_graph: Any = None
        if capture:
            with torch.inference_mode():
                self._record()

    # ------------------------------------------------------------------ the bodies
    def _keep_in_place(self) -> None:
        """The state's new values back into its input tensors (which the graphs read)."""
        s = self.state
        for name, t in self.inputs.items():
            new = getattr(s, name)
            if new is not t:
                t.copy_(new)
                setattr(s, name, t)

    def _step_body(self) -> None:
        g, s = self.game, self.state
        for name, t in self.inputs.items():
            self.snapshot[name].copy_(t)
        g.beyond_table.zero_()
        info = g.step_drawn(s, self.action, self.draws, self.active)
        rewards = g.rewards(s, info)
        self._keep_in_place()
        self.out["rewards"].copy_(rewards)
        self.out["won"].copy_(info.won)
        self.out["truncated"].copy_(info.truncated)
        self.out["eliminated"].copy_(info.eliminated)

    def _present_body(self) -> None:
        shown = self._present_fn(self.state)
        if not self.shown:
            self.shown = {k: _like(v) for k, v in shown.items()}
        for k, v in shown.items():
            _copy(self.shown[k], v)

    def _record(self) -> None:
        """Warm up on a side stream (the position put back after), then record both graphs."""
        g = self.game
        saved = {k: v.clone() for k, v in self.inputs.items()}
        gen = g.generator.get_state()
        side = torch.cuda.Stream(device=g.device)
        side.wait_stream(torch.cuda.current_stream(g.device))
        with torch.cuda.stream(side):
            for _ in range(2):
                self._step_body()
                self._present_body()
                self._restore(saved)
        torch.cuda.current_stream(g.device).wait_stream(side)
        g.capturing = True
        try:
            self._step_graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self._step_graph):
                self._step_body()
            self._present_graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self._present_graph):
                self._present_body()
        finally:
            g.capturing = False
        self._restore(saved)
        g.generator.set_state(gen)

    def _restore(self, saved: dict[str, torch.Tensor]) -> None:
        for name, t in self.inputs.items():
            t.copy_(saved[name])
            setattr(self.state, name, t)

    # ------------------------------------------------------------------ replay
    @torch.inference_mode()  # (as the engine's step: the state's tensors are inference tensors)
    def step(self, action: torch.Tensor, active: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """Play one step of every game with ``action`` (int64 ``(B,)``; games where bool ``active`` is
        False are left as they are); returns the step's ``rewards``, ``won``, ``truncated`` and
        ``eliminated`` (the runner's own tensors: copy what you keep)."""
        g = self.game
        self.action.copy_(action)
        if active is None:
            self.active.fill_(True)
        else:
            self.active.copy_(active)
        self.draws.redraw()
        if self._step_graph is not None:
            self._step_graph.replay()
        else:  # the body as the graph plays it: no host checks
            g.capturing = True
            try:
                self._step_body()
            finally:
                g.capturing = False
        if bool(g.beyond_table):  # a blitz beyond the table: the same step again, without the graph
            self._restore(self.snapshot)
            self._step_body()
            self.replayed += 1
        return self.out

    @torch.inference_mode()  # (as the engine's step: the state's tensors are inference tensors)
    def present(self) -> dict[str, Any]:
        """What ``present(state)`` gives for the state now (the runner's own tensors: copy what you keep)."""
        if self._present_graph is not None:
            self._present_graph.replay()
        else:
            self._present_body()
        return self.shown


def _like(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return torch.empty_like(v)
    return {k: _like(x) for k, x in v.items()}


def _copy(dst: Any, src: Any) -> None:
    if isinstance(dst, torch.Tensor):
        if dst.data_ptr() != src.data_ptr():
            dst.copy_(src)
        return
    for k in dst:
        _copy(dst[k], src[k])
