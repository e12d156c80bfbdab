"""Training configs: :class:`TrainConfig` (validated with pydantic), the shipped YAML files, overrides.

The shipped configs (``default``, the main job: ``device``, the on-device trainer's recipe, with a
10-minute safety net; ``sb3``, the MaskablePPO recipe; ``2p``, ``4p``, ``long``; and ``ppo-2p``, ``ppo-3p``,
``ppo-4p``, ``ppo-5p``, ``ppo-6p``, ``ppo-2p-0.1`` and ``ppo-4p-0.1``, which trained the pretrained agents)
are package data of ``risk_env.configs`` (the repository's top-level ``configs/`` folder), so
a name works from an installed wheel as from a checkout:

>>> sorted(shipped_configs())
['2p', '4p', 'default', 'device', 'long', 'ppo-2p', 'ppo-2p-0.1', 'ppo-3p', 'ppo-4p', 'ppo-4p-0.1', 'ppo-5p', 'ppo-6p', 'sb3']
>>> load_config("4p", ["ppo.learning_rate=1e-4"]).rules_config.num_players
4

Overrides are ``--set`` items read by :func:`risk_env.rules.config.parse_settings`
with dotted keys (``ppo.learning_rate=1e-4``, ``env.n_envs=8``); the ``rules``
section goes through :func:`risk_env.rules.config.resolve_rules`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from ..errors import ConfigError
from ..rules.config import RulesConfig, parse_settings, resolve_rules
from ..rules.yaml_loader import UniqueKeyLoader

__all__ = [
    "BATCHED_POLICIES",
    "CONFIG_DIR",
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_TIMESTEPS",
    "MAX_COUNT",
    "MAX_TORCH_THREADS",
    "SELF",
    "TrainConfig",
    "apply_overrides",
    "device_unsupported",
    "env_kwargs",
    "load_config",
    "read_yaml",
    "rules_from",
    "shipped_configs",
]

CONFIG_DIR: Traversable = files("risk_env.configs") / "train"
"""The folder of the shipped YAML configs (package data of ``risk_env.configs``)."""


MAX_TIMESTEPS = 10**12
"""Most learner decisions a config may ask for (``total_timesteps``, ``--timesteps``): a trillion, days at the
batched engine's speed on one GPU; a larger number is a typing slip (``1e30``), refused rather than read as
"until max_minutes"."""

MAX_COUNT = 2**31 - 1
"""Most envs, steps per rollout or decisions per minibatch a config may ask for (``env.n_envs``, ``ppo.n_steps``,
``ppo.batch_size``, ``imitation.batch_size``): the largest 32-bit count. A larger one is a typing slip that torch
could not even size a tensor by; what fits the memory is checked by the trainer before the run folder is written
(:func:`risk_env.train.device_train.check_memory`)."""

MAX_ROUNDS = 64
"""The most message-passing rounds of the graph policy (``ppo.graph_rounds``): a round reaches one territory further,
and no shipped map is 64 territories across; each round costs Python objects besides its weights, so a slip such as
``1e6`` would take minutes and gigabytes to build."""

MAX_TORCH_THREADS = 1024
"""Most torch threads a config may ask for (``torch_threads``): a fixed cap, so a config means the same on every
machine; torch crashes (a segmentation fault) when asked for many more threads than that."""


class _Section(BaseModel):
    # strict: a value of another type is refused, not converted ("16" is not 16, true is not 1);
    # an int is still accepted where a float belongs; numbers are finite
    model_config = ConfigDict(extra="forbid", validate_assignment=True, strict=True, allow_inf_nan=False)


def rules_from(d: Mapping[str, Any]) -> RulesConfig:
    """The :class:`RulesConfig` of a config's ``rules`` mapping (:func:`risk_env.rules.config.resolve_rules`)."""
    return resolve_rules(rules=d)


def _check_rules(v: dict[str, Any]) -> dict[str, Any]:
    try:
        rules_from(v)
    except ConfigError as e:
        raise ValueError(str(e)) from None
    return v


def _check_specs(spec: str, info: ValidationInfo | None = None) -> str:
    """Refuse an agent spec (or each agent of an ``a+b+c`` line-up) that names none of the forms
    :func:`risk_env.agents.load_agent` reads (:func:`risk_env.agents.registry.check_spec`), with the
    forms there are; the spec with its shipped names in the registry's form
    (:func:`risk_env.agents.registry.canonical_spec`: ``Balanced`` is ``balanced``). For ``trainer: device``
    (``info``'s context, :meth:`TrainConfig.from_dict`) the specs are checked by :func:`device_unsupported`, which
    names the forms that trainer plays (load_agent's forms include some it does not)."""
    from ..agents.registry import canonical_spec, check_spec, lineup_parts
    from ..errors import UnknownAgentError

    device = info is not None and isinstance(info.context, Mapping) and info.context.get("trainer") == "device"
    for part in lineup_parts(spec):
        try:
            check_spec(part)
        except UnknownAgentError as e:
            if device:  # (load_agent's forms include some trainer device does not play)
                plays = _device_teachers if info is not None and info.field_name == "teacher" else _device_opponents
                raise ValueError(f"unknown agent {part.strip()!r}: trainer 'device' plays {plays()}") from None
            raise ValueError(str(e)) from None
    return canonical_spec(spec)


def _device_opponents() -> str:
    return f"{_device_teachers()}; or [self], and opponents.self_play for snapshots of the learner"


def _device_teachers() -> str:
    from ..agents.registry import PRETRAINED

    return (
        f"the batched policies: {', '.join(BATCHED_POLICIES)}; or a network: a pretrained agent ({', '.join(PRETRAINED)}), "
        "a policy file .pt or a MaskablePPO .zip"
    )


class EnvSection(_Section):
    """The training envs (see :class:`~risk_env.envs.single_agent.RiskSingleAgentEnv`)."""

    n_envs: int = Field(16, ge=1, le=MAX_COUNT, description="parallel environments")
    vec_env: Literal["auto", "dummy", "subproc"] = Field(
        "dummy", description="'subproc': one process per env; 'dummy': all in this process; 'auto': subproc if n_envs > 1"
    )
    shaping: float = Field(1.0, ge=0.0, description="territory-difference shaping coefficient (0 = off)")
    shaping_gamma: float | None = Field(
        None, gt=0.0, le=1.0, description="gamma of the potential-based shaping gamma*phi' - phi (null: ppo.gamma)"
    )
    turn_feature: bool | None = Field(
        None, description="show turn / turn limit in the observation (null: only in the flat observation)"
    )
    max_turn_steps: int | None = Field(None, ge=1, description="learner decisions per turn before a stalled loss (null: no cap)")
    invalid_action: Literal["random", "penalty", "raise"] = "random"
    backend: Literal["reference", "vector"] = Field(
        "reference",
        description="'vector': the batched torch engine (risk_env.vector; flat observation, mlp policy, "
        "random and the batched heuristics as opponents, no self-play); see docs/vector.md",
    )
    vector_device: str = Field("cpu", description="torch device of the batched engine (backend: vector)")
    player_counts: list[int] | None = Field(
        None,
        min_length=1,
        description="trainer device: train one network on games of each of these player counts in turn "
        "(n_envs slots each; null: rules.num_players)",
    )
    stagger_calls: int = Field(
        0,
        ge=0,
        le=100_000,
        description="trainer device: before the first rollout (after a warm start; on a resume too) each slot plays "
        "a uniform random number of calls below this with the policy, not trained on or counted, so the games of the "
        "lockstep slots are spread over their phases instead of all beginning together (0: no spread; about one "
        "game's learner decisions spreads them fully)",
    )

    @field_validator("player_counts")
    @classmethod
    def _counts(cls, v: list[int] | None) -> list[int] | None:
        if v is not None and (any(k < 2 or k > 6 for k in v) or len(set(v)) != len(v)):
            raise ValueError(f"player_counts must be distinct player counts from 2 to 6, got {v}")
        return v


class PPOSection(_Section):
    """MaskablePPO hyperparameters (sb3-contrib's names)."""

    learning_rate: float = Field(3e-4, gt=0)
    n_steps: int = Field(128, ge=2, le=MAX_COUNT, description="steps per env per rollout")
    batch_size: int = Field(512, ge=2, le=MAX_COUNT)
    n_epochs: int = Field(4, ge=1)
    gamma: float = Field(0.999, gt=0, le=1)
    gae_lambda: float = Field(0.95, ge=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.01, ge=0)
    vf_coef: float = Field(0.5, ge=0)
    max_grad_norm: float = Field(0.5, gt=0)
    policy: Literal["mlp", "graph"] = Field(
        "graph", description="'mlp': MlpPolicy on the flat observation; 'graph': GraphPolicy on the graph observation"
    )
    net_arch: list[Annotated[int, Field(ge=1)]] = Field(
        default_factory=lambda: [128, 128], min_length=1, description="mlp policy only: hidden layer widths, each >= 1"
    )
    activation: Literal["tanh", "relu"] = Field("tanh", description="mlp policy only")
    graph_hidden: int = Field(32, ge=1, description="graph policy: embedding width")
    graph_rounds: int = Field(3, ge=0, le=MAX_ROUNDS, description=f"graph policy: message-passing rounds (at most {MAX_ROUNDS})")
    device: str = Field("cpu", description="torch device: cpu, cuda, auto")
    init: str | None = Field(
        None,
        description="trainer device: start from this network (a policy file .pt, a MaskablePPO graph checkpoint "
        ".zip, or a pretrained name such as ppo-2p, which comes before a file of that name: ./ppo-2p names the file) "
        "instead of fresh weights; the step count starts at 0",
    )
    precision: Literal["float32", "bfloat16"] = Field(
        "float32", description="trainer device: 'bfloat16' runs the network's matrix products under autocast"
    )


class SelfPlaySection(_Section):
    """Frozen snapshots of the learner in the opponent pool (see the module docstring)."""

    enabled: bool = False
    snapshot_every: int = Field(200_000, ge=1, description="steps between snapshots")
    p_snapshot: float = Field(0.5, ge=0, le=1)
    p_latest: float = Field(0.5, ge=0, le=1)
    max_snapshots: int = Field(10, ge=1)
    snapshot_deterministic: bool = False


class PFSPSection(_Section):
    """Prioritized fictitious self-play (:mod:`risk_env.train.pfsp`): opponents drawn more
    often the more the learner loses to them (weight x (1 - win rate) ** power)."""

    enabled: bool = False
    power: float = Field(1.0, ge=0, description="exponent p of (1 - win rate) ** p (0: uniform)")
    window: int = Field(200, ge=1, description="latest results kept per opponent")
    update_every: int = Field(20_000, ge=1, description="steps between pushes of the priorities to the envs")


class OpponentsSection(_Section):
    """Who plays the other seats."""

    baselines: list[str] = Field(
        default_factory=lambda: ["random", "balanced"], min_length=1, description="agent specs (load_agent)"
    )
    weights: list[float] | None = None
    self_play: SelfPlaySection = Field(default_factory=lambda: SelfPlaySection.model_validate({}))
    pfsp: PFSPSection = Field(default_factory=lambda: PFSPSection.model_validate({}))

    @field_validator("baselines")
    @classmethod
    def _baselines(cls, v: list[str], info: ValidationInfo) -> list[str]:
        # the names before the weights: a mistyped name is the error to show, not the count it changed
        specs = [SELF if spec.strip().lower() == SELF else _check_specs(spec, info) for spec in v]
        twice = [spec for i, spec in enumerate(specs) if spec in specs[:i]]
        if twice:  # (the league seats each baseline once: their shares are the weights)
            raise ValueError(
                f"{twice[0]!r} is named twice ({specs}): name each baseline once, and give its share in opponents.weights"
            )
        return specs

    @model_validator(mode="after")
    def _weights(self) -> OpponentsSection:
        if self.weights is not None and (
            len(self.weights) != len(self.baselines) or min(self.weights) < 0 or sum(self.weights) <= 0
        ):
            n = len(self.baselines)
            raise ValueError(
                f"weights {self.weights} do not fit baselines {self.baselines}: give {n} non-negative "
                f"{'number' if n == 1 else 'numbers'} (one per baseline, not all zero), or set opponents.weights "
                "to null (equal weights)"
            )
        return self


class ImitationSection(_Section):
    """Imitation warm start before PPO (:mod:`risk_env.train.imitation`): behaviour cloning of
    ``teacher`` on its own games, then DAgger rounds on the student's games."""

    enabled: bool = False
    teacher: str = Field(
        "balanced",
        description="agent spec (load_agent) whose decisions are cloned; trainer device: a batched policy "
        "(random, aggressive, balanced, continent) or a network (a pretrained agent, a policy file .pt, a MaskablePPO "
        ".zip) playing its most probable action",
    )
    decisions: int = Field(20_000, ge=1, description="teacher decisions in the first dataset")
    dagger_rounds: int = Field(2, ge=0, description="rounds of: the student plays, the teacher labels, refit")
    dagger_decisions: int = Field(10_000, ge=1, description="student decisions added per DAgger round")
    dagger_deterministic: bool = Field(False, description="the student plays its most probable action (else samples)")
    epochs: int = Field(3, ge=1, description="passes over the dataset per fit")
    batch_size: int = Field(256, ge=1, le=MAX_COUNT)
    learning_rate: float = Field(1e-3, gt=0)
    vf_coef: float = Field(0.5, ge=0, description="weight of the value head's squared error")

    @field_validator("teacher")
    @classmethod
    def _teacher(cls, v: str, info: ValidationInfo) -> str:
        return _check_specs(v, info)


class KickstartSection(_Section):
    """Kickstarting during PPO (:mod:`risk_env.train.kickstart`): the loss adds
    c(t) * CE(teacher's action | learner's state), c(t) = kl_coef * max(0, 1 - t / anneal_steps)."""

    enabled: bool = False
    teacher: str = Field(
        "balanced",
        description="agent spec (load_agent) labelling the learner's rollout states; trainer device: a batched "
        "policy (random, aggressive, balanced, continent) or a network (a pretrained agent, a policy file .pt, a "
        "MaskablePPO .zip) playing its most probable action",
    )
    kl_coef: float = Field(1.0, ge=0, description="weight of the teacher term at step 0")
    anneal_steps: int = Field(1_000_000, ge=1, description="steps until the weight reaches 0 (linearly)")

    @field_validator("teacher")
    @classmethod
    def _teacher(cls, v: str, info: ValidationInfo) -> str:
        return _check_specs(v, info)


class EvalSection(_Section):
    """Periodic and final evaluation with :func:`risk_env.tools.evaluation.evaluate`."""

    every: int = Field(250_000, ge=0, description="steps between evaluations (0: only the final one)")
    games: int = Field(20, ge=1, description="games per opponent in a periodic evaluation")
    final_games: int = Field(200, ge=0, description="games per opponent in the final evaluation (0: none)")
    opponents: list[str] = Field(
        default_factory=lambda: ["random", "balanced"],
        description="agent specs; each fills every other seat, or 'a+b+c' names one agent per other seat",
    )
    rules: dict[str, Any] | None = Field(
        None,
        description="rules of evaluation games (null, the default: the training rules)",
    )
    workers: int | None = Field(None, ge=1, description="evaluation processes of the reference backend (default: every core)")
    backend: Literal["reference", "vector"] = Field(
        "reference",
        description="'reference': game by game in worker processes; 'vector': the games in lockstep on the batched "
        "engine with the batched heuristics (risk_env.evaluate's backend)",
    )
    seed: int = Field(
        12345, ge=0, lt=2**32, description="seeds the evaluation games (below 2**32: a torch generator reads 32 bits)"
    )

    @model_validator(mode="after")
    def _workers(self) -> EvalSection:
        if self.backend == "vector" and self.workers is not None and self.workers > 1:
            raise ValueError(
                f"workers={self.workers} sets the reference backend's processes; the vector backend plays the games "
                "in one process: leave eval.workers null (or set eval.backend: reference)"
            )
        return self

    @field_validator("opponents")
    @classmethod
    def _opponents(cls, v: list[str]) -> list[str]:
        from ..agents.registry import canonical_spec

        return [canonical_spec(spec) for spec in v]  # (each is checked as it is played: risk_env.train.run)

    @field_validator("rules")
    @classmethod
    def _rules(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if v is None else _check_rules(v)


class CheckpointSection(_Section):
    every: int = Field(100_000, ge=1, description="steps between checkpoints")
    keep: int | None = Field(3, ge=1, description="newest checkpoints kept (null: all)")
    average_from: int | None = Field(
        None,
        ge=0,
        description="trainer 'device': at the run's end, also write model_avg.pt, the uniform average of the weights of "
        "its checkpoints from this step on, the last included (stochastic weight averaging: "
        "risk_env.train.graph_net.average_policies); checkpoint.keep spares those (null: no average)",
    )


class TrainConfig(_Section):
    """A training run. Every key has a default; YAML files override some of them.

    Top level: ``name`` (run name; the run directory defaults to ``runs/<name>``),
    ``trainer`` (``sb3`` or ``device``), ``seed``, ``total_timesteps`` (learner decisions), ``max_minutes`` (optional
    wall-clock budget for the learning phase), ``torch_threads``, ``out_dir``,
    and the sections ``rules``, ``env``, ``ppo``, ``opponents`` (with ``self_play`` and
    ``pfsp``), ``imitation``, ``kickstart``, ``eval``, ``checkpoint`` (see their classes).
    """

    name: str = "default"
    trainer: Literal["sb3", "device"] = Field(
        "sb3",
        description="'sb3': sb3-contrib MaskablePPO on the reference envs (risk_env.train.sb3); 'device': PPO on "
        "the batched engine with every tensor on ppo.device (risk_env.train.device_train)",
    )
    seed: int = Field(0, ge=0, lt=2**32, description="seeds the run (below 2**32: SB3 seeds numpy's legacy generator)")
    total_timesteps: int = Field(500_000, ge=1, le=MAX_TIMESTEPS, description=f"learner decisions (1 to {MAX_TIMESTEPS:.0e})")
    max_minutes: float | None = Field(10.0, gt=0)
    torch_threads: int | None = Field(
        None, ge=1, le=MAX_TORCH_THREADS, description=f"torch threads in the trainer (default 1; 1 to {MAX_TORCH_THREADS})"
    )
    out_dir: str | None = None
    rules: dict[str, Any] = Field(default_factory=lambda: {"preset": "fast", "num_players": 2})
    env: EnvSection = Field(default_factory=lambda: EnvSection.model_validate({}))
    ppo: PPOSection = Field(default_factory=lambda: PPOSection.model_validate({}))
    opponents: OpponentsSection = Field(default_factory=lambda: OpponentsSection.model_validate({}))
    imitation: ImitationSection = Field(default_factory=lambda: ImitationSection.model_validate({}))
    kickstart: KickstartSection = Field(default_factory=lambda: KickstartSection.model_validate({}))
    eval: EvalSection = Field(default_factory=lambda: EvalSection.model_validate({}))
    checkpoint: CheckpointSection = Field(default_factory=lambda: CheckpointSection.model_validate({}))

    @field_validator("rules")
    @classmethod
    def _rules(cls, v: dict[str, Any]) -> dict[str, Any]:
        return _check_rules(v)

    @model_validator(mode="after")
    def _eval_lineups(self) -> TrainConfig:
        from ..agents.registry import is_lineup, lineup_parts

        n = self.eval_rules_config.num_players
        for spec in self.eval.opponents:
            if is_lineup(spec) and len(lineup_parts(spec)) != n - 1:
                raise ValueError(
                    f"eval.opponents: the line-up {spec!r} must name {n - 1} agent{'s' if n > 2 else ''} "
                    f"(one per other seat of the {n} players of eval.rules)"
                )
        return self

    @model_validator(mode="after")
    def _trainer_settings(self) -> TrainConfig:
        if self.trainer == "sb3":
            if self.ppo.precision != "float32":
                raise ValueError(f"ppo.precision={self.ppo.precision!r} needs trainer 'device' (sb3 computes in float32)")
            if self.ppo.init is not None or self.env.player_counts is not None:
                raise ValueError("ppo.init and env.player_counts need trainer 'device' (sb3: --resume a model to start from it)")
            if self.env.stagger_calls:
                raise ValueError("env.stagger_calls needs trainer 'device' (the sb3 trainer's envs are not in lockstep)")
            if SELF in self.opponents.baselines:
                raise ValueError(
                    f"opponents.baselines: {SELF!r} (the learner in an opponent seat) needs trainer 'device'; "
                    "the sb3 trainer plays itself through opponents.self_play snapshots"
                )
            return self
        bad = device_unsupported(self)
        if bad:
            raise ValueError("trainer 'device' does not support " + "; ".join(bad))
        return self

    @model_validator(mode="after")
    def _average(self) -> TrainConfig:
        start = self.checkpoint.average_from
        if start is None:
            return self
        if self.trainer != "device":
            raise ValueError("checkpoint.average_from needs trainer 'device' (it averages graph policy files, .pt)")
        if start >= self.total_timesteps:
            raise ValueError(
                f"checkpoint.average_from={start} must be below total_timesteps={self.total_timesteps} (the run's last "
                "checkpoint is averaged with those from average_from on)"
            )
        return self

    @field_validator("out_dir")
    @classmethod
    def _out_dir(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError("an empty run folder: give a folder, or leave it out (out_dir: null, no --out) for runs/<name>")
        return v

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", v):
            raise ValueError(f"name must be letters, digits, '_', '-' or '.', got {v!r}")
        return v

    # -------------------------------------------------------------- helpers
    @property
    def rules_config(self) -> RulesConfig:
        return rules_from(self.rules)

    def lane_rules(self, players: int) -> dict[str, Any]:
        """The ``rules`` mapping of the games of ``players`` players (a lane of ``env.player_counts``): the config's,
        with its ``num_players`` set; switches that follow from the count (the starting armies) follow it."""
        return {**self.rules, "num_players": players}

    @property
    def eval_rules_config(self) -> RulesConfig:
        return rules_from(self.eval.rules) if self.eval.rules is not None else self.rules_config

    @property
    def run_dir(self) -> Path:
        return Path(self.out_dir) if self.out_dir else Path("runs") / self.name

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "config", overrides: Sequence[str] = ()) -> TrainConfig:
        """Validate a dict (e.g. parsed YAML): a mapping of plain JSON values (text keys; text,
        numbers, booleans, null, lists and mappings; at most :data:`MAX_DEPTH` levels and
        :data:`MAX_NODES` values), every key known, every value of its type and range.

        ``overrides``: the ``key=value`` overrides already applied to ``data`` (:func:`apply_overrides`), so that
        an error in a key one of them set names it.

        Raises:
            ConfigError: one line naming ``source``, each offending key (and the override that set it), what was
                wrong and what is allowed.
        """
        _check_plain(data, source)
        set_by = {item.split("=", 1)[0].strip(): item for item in overrides}
        try:
            trainer = data.get("trainer") if isinstance(data, Mapping) else None  # (the sections' checks read it)
            return cls.model_validate(_whole_counts(data), context={"trainer": trainer})
        except ValidationError as e:
            parts = []
            for err in e.errors():
                loc = ".".join(_key_text(p) for p in err["loc"]) or "(top level)"
                msg = re.sub(r"\s*\n\s*", " ", str(err["msg"])).strip()  # one line; a value's own spaces kept
                if err["type"] == "value_error":  # our validators' own messages, without pydantic's "Value error, "
                    msg = msg.removeprefix("Value error, ")
                value = err.get("input")
                if err["type"] == "extra_forbidden":
                    msg = f"unknown key; allowed here: {', '.join(_allowed_keys(cls, err['loc'][:-1]))}"
                elif err["type"] != "missing" and not isinstance(value, (dict, list)) and repr(value) not in msg:
                    msg = f"{msg}, got {_value_text(value)}"  # (once: a validator's own message may name the value already)
                # (the last override that reached the key: a later one replaced what an earlier one set there)
                if not err["loc"] and err["type"] == "value_error":  # a check across sections: its message names
                    named = [item for key, item in set_by.items() if _names_override(msg, key, data)]  # keys it reads
                    said = f"override{'s' if len(named) > 1 else ''} {', '.join(map(repr, named))}"
                    parts.append(msg + (f" (set by the {said})" if named else ""))
                    continue
                by = next((item for key, item in reversed(set_by.items()) if _overlaps(loc, key)), None)
                parts.append(f"{loc}: {msg}" + (f" (set by the override {by!r})" if by is not None else ""))
            raise ConfigError(f"{source}: invalid training config: " + "; ".join(parts)) from None

    @classmethod
    def load(cls, path: str | os.PathLike[str], overrides: Sequence[str] = ()) -> TrainConfig:
        """Read a YAML file (a path, or a shipped config name such as ``"2p"``) and apply
        ``key.sub=value`` overrides (values read by :func:`~risk_env.rules.config.parse_settings`).

        The file must hold a mapping (``{}`` for every default); floats in exponent form read as
        YAML 1.2 reads them, so ``1e-4`` is a number (PyYAML alone would read it as text); the rest is PyYAML's
        YAML 1.1 (``010`` is 8, ``yes`` is true).

        Raises:
            ConfigError: a missing or unreadable file, text that is not UTF-8, not YAML, empty,
                not a mapping, or holding values JSON cannot (dates, binary, sets, keys that are
                not text), unknown keys, bad values. The message is one line naming the file.
        """
        p = _find_config(path)
        data = read_yaml(p)
        _check_plain(data, str(p))
        return cls.from_dict(apply_overrides(data, overrides), source=str(p), overrides=overrides)

    def to_yaml(self) -> str:
        """The config as YAML (``config.yaml`` of a run, ``--print-config``), read back by :func:`read_yaml` as itself."""
        return yaml.dump(self.model_dump(mode="json"), Dumper=_Yaml12Dumper, sort_keys=False)


def _names_key(message: str, key: str) -> bool:
    """Whether a check's ``message`` names the dotted ``key`` (``checkpoint.average_from``, not ``seed`` in
    ``seeds``): the keys a check across sections read, for the overrides that set them."""
    return bool(key) and re.search(rf"(?<![\w.]){re.escape(key)}(?![\w])", message) is not None


def _names_override(message: str, key: str, data: Mapping[str, Any]) -> bool:
    """Whether a check's ``message`` reads the dotted config ``key`` an override set: it names the key or a section
    holding it (``eval.rules`` for ``eval.rules.num_players``), or it names ``eval.rules`` and the key is a ``rules``
    switch that ``eval.rules`` holds at the same value (an override followed there: :func:`_follow_eval_rules`)."""
    parts = key.split(".")
    if _names_key(message, key) or any(_names_key(message, ".".join(parts[:n])) for n in range(2, len(parts))):
        return True
    if parts[0] != "rules" or len(parts) > 2 or not _names_key(message, "eval.rules"):
        return False
    rules, ev = data.get("rules"), data.get("eval")
    ev_rules = ev.get("rules") if isinstance(ev, Mapping) else None
    if not (isinstance(rules, Mapping) and isinstance(ev_rules, Mapping)):
        return False
    return rules == ev_rules if len(parts) == 1 else rules.get(parts[1], _UNSET) == ev_rules.get(parts[1], _UNSET)


def _overlaps(loc: str, key: str) -> bool:
    """Whether the config key ``loc`` (dotted) is ``key``, inside it, or holds it: an error at ``loc`` may come
    from an override of ``key``."""
    return f"{loc}.".startswith(f"{key}.") or key.startswith(f"{loc}.")


MAX_DEPTH = 32
"""Most levels of nesting a training config may have."""

MAX_NODES = 100_000
"""Most values (keys, items, scalars) a training config may hold (a YAML alias repeats its value)."""


class _Yaml12Loader(UniqueKeyLoader):
    """The settings files' safe loader (:class:`risk_env.rules.yaml_loader.UniqueKeyLoader`: a key given twice is refused),
    reading exponent floats as YAML 1.2 does (``1e-4``, ``2E6`` are floats)."""


_YAML12_FLOAT = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))


class _Yaml12Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper, quoting text that :class:`_Yaml12Loader` would read as a number (an ``out_dir`` of
    ``1e3``), so that a written ``config.yaml`` reads back as it was."""


_Yaml12Dumper.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))


def read_yaml(path: Path | Traversable) -> Any:
    """The YAML document in ``path`` (UTF-8 text), with YAML 1.2's exponent floats.

    Raises:
        ConfigError: the file cannot be read, is not UTF-8, not YAML, nests too deeply, or is empty
            (one line naming the file).
    """
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the training config: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start}); save the training config as UTF-8 YAML") from None
    try:
        data = yaml.load(text, Loader=_Yaml12Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {' '.join(str(e).split())}") from None
    except (ValueError, TypeError, OverflowError, KeyError, IndexError, AttributeError) as e:  # (a tag's own reader:
        # !!int 16.0, !!float abc, !!bool maybe, !!int "", !!timestamp foo)
        raise ConfigError(f"{path}: not valid YAML: a tagged value does not read ({e})") from None
    except RecursionError:
        raise ConfigError(f"{path}: nests too deeply to be a training config (at most {MAX_DEPTH} levels)") from None
    if data is None:
        raise ConfigError(f"{path}: the training config is empty; write {{}} for every default, or some keys to change")
    return data


def _value_text(value: Any) -> str:
    """``repr(value)``, except for an integer of more than 15 digits that is a float's value: the float's text
    (``1e+30``, not the 31 digits of the whole float an override's ``1e30`` is stored as). Digits typed as digits
    (``99999999999999999999``, which no float holds) are shown as they are."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        as_float = float(value)
        if int(as_float) == value:
            return repr(as_float)
    return repr(value)


def _key_text(key: Any) -> str:
    """A key (or list index) as a message shows it: plain when it is a printable word, else quoted."""
    if isinstance(key, int) or (isinstance(key, str) and key and key.isprintable() and not any(c.isspace() for c in key)):
        return str(key)
    return repr(key)


def _kind(v: Any) -> str:
    kinds = {list: "a list", dict: "a mapping", str: "text", bool: "a boolean", int: "an integer", float: "a number"}
    kinds.update({type(None): "null", bytes: "binary data", set: "a set"})
    return kinds.get(type(v), f"a {type(v).__name__}")


def _check_plain(data: Any, source: str) -> None:
    """Refuse (naming ``source``) data that is not a mapping of plain JSON-compatible values."""
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{source}: a training config must be a mapping of keys to values, got {_kind(data)}; "
            f"top-level keys: {', '.join(TrainConfig.model_fields)}"
        )
    problem = _json_problem(data)
    if problem:
        raise ConfigError(f"{source}: {problem}")


def _json_problem(data: Any) -> str | None:
    """Why ``data`` is not plain JSON-compatible values (as YAML may hold dates, binary, sets,
    keys that are not text, aliases that repeat a value many times), or None."""
    seen = 0
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        v, where, depth = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            return f"the training config holds more than {MAX_NODES} values"
        if depth > MAX_DEPTH:
            return f"{where or '(top level)'}: nests more than {MAX_DEPTH} levels deep"
        if isinstance(v, Mapping):
            for k, item in v.items():
                if not isinstance(k, str):
                    return f"{where or '(top level)'}: the key {k!r} is {_kind(k)}; keys are text"
                stack.append((item, f"{where}.{_key_text(k)}" if where else _key_text(k), depth + 1))
        elif isinstance(v, list):
            stack.extend((item, f"{where}[{i}]", depth + 1) for i, item in enumerate(v))
        elif v is not None and not isinstance(v, (str, bool, int, float)):
            return (
                f"{where or '(top level)'}: {v!r} is {_kind(v)}, which a training config cannot hold "
                "(text, numbers, true/false, null, lists and mappings only)"
            )
    return None


SELF = "self"
"""The opponent spec naming the learner itself (trainer ``device``): a seat it plays is a learner seat."""

BATCHED_POLICIES = ("random", "aggressive", "balanced", "continent")
"""The agents trainer ``device`` seats as opponents and teaches with by name (a network does too): the batched policies of
:func:`risk_env.vector.agents.make_policy` (``random`` and :data:`~risk_env.vector.agents.BATCHED_HEURISTICS`;
named here so that a config is checked without torch)."""


def device_unsupported(cfg: TrainConfig) -> list[str]:
    """The settings of ``cfg`` that ``trainer: device`` does not implement, each with what to do instead
    (an empty list when it runs)."""
    from ..agents.registry import is_lineup, lineup_parts

    bad = []
    if cfg.ppo.policy != "graph":
        bad.append(f"ppo.policy={cfg.ppo.policy!r} (it trains the graph policy: ppo.policy=graph)")
    if cfg.env.backend != "reference":
        bad.append(
            f"env.backend={cfg.env.backend!r} (the sb3 trainer's batched env; "
            "trainer 'device' always plays on the batched engine)"
        )
    if cfg.env.max_turn_steps is not None:
        bad.append("env.max_turn_steps (the batched engine has no per-turn cap; leave it null)")
    env_defaults = EnvSection.model_fields
    if cfg.env.vector_device != env_defaults["vector_device"].default:
        bad.append(
            f"env.vector_device={cfg.env.vector_device!r} (the sb3 trainer's batched env; trainer 'device' plays its "
            "games where the network is: set ppo.device)"
        )
    if cfg.env.vec_env != env_defaults["vec_env"].default:
        bad.append(
            f"env.vec_env={cfg.env.vec_env!r} (the sb3 trainer's reference envs; trainer 'device' runs the env.n_envs "
            "games in one batch: leave it at dummy)"
        )
    lineups = [b for b in cfg.opponents.baselines if is_lineup(b)]
    if lineups and (cfg.opponents.self_play.enabled or cfg.opponents.pfsp.enabled):
        bad.append(
            f"opponents.baselines line-ups {lineups} with self_play or pfsp (a league draws each opponent seat: "
            "give single baselines)"
        )
    if cfg.opponents.baselines == [SELF] and (cfg.opponents.self_play.enabled or cfg.opponents.pfsp.enabled):
        bad.append("opponents.self_play / pfsp with baselines [self] (every seat is the learner already)")
    if SELF in cfg.opponents.baselines and cfg.opponents.baselines != [SELF]:
        bad.append(
            f"opponents.baselines={cfg.opponents.baselines!r} ({SELF!r} with baselines: give [self] for self-play, "
            "or batched baselines)"
        )
    others = [part for spec in cfg.opponents.baselines if spec != SELF for part in lineup_parts(spec) if not _batched_spec(part)]
    if others:
        bad.append(f"opponents.baselines {others} (its opponents are {_device_opponents()})")
    for key, section in (("imitation", cfg.imitation), ("kickstart", cfg.kickstart)):
        if section.enabled and not _batched_spec(section.teacher):
            bad.append(f"{key}.teacher={section.teacher!r} (its teachers are {_device_teachers()})")
    return bad


def _batched_spec(spec: str) -> bool:
    """Whether trainer ``device`` seats and teaches with ``spec``: a batched policy, or a network the batched engine reads
    (:func:`risk_env.agents.registry.network_form`: a pretrained agent, a policy file, a MaskablePPO ``.zip``)."""
    from ..agents.registry import network_form

    key = spec.strip()
    return key in BATCHED_POLICIES or network_form(key) is not None


def _allowed_keys(model: type[BaseModel], loc: Sequence[Any]) -> list[str]:
    for part in loc:
        f = model.model_fields.get(str(part))
        ann = getattr(f, "annotation", None) if f is not None else None
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            model = ann
        else:
            return []
    return list(model.model_fields)


def shipped_configs() -> dict[str, Traversable]:
    """The training configs shipped in the package (``risk_env.configs``, from the repository's
    ``configs/train/`` folder): name -> resource, e.g. ``{"2p": .../2p.yaml, ...}``."""
    folder = CONFIG_DIR
    return {x.name[: -len(".yaml")]: x for x in sorted(folder.iterdir(), key=lambda t: t.name) if x.name.endswith(".yaml")}


def _find_config(path: str | os.PathLike[str]) -> Path | Traversable:
    p = Path(path)
    if p.exists():
        return p
    shipped = shipped_configs()
    text = os.fspath(path).strip()
    name = text[: -len(".yaml")] if text.lower().endswith(".yaml") else text
    by_name = {k.lower(): v for k, v in shipped.items()}
    # a bare name in any case, ".yaml" or not (dotted too: ppo-4p-0.1), or the repository's configs/train/<name>.yaml
    # (the folder the package ships) outside a checkout; any other path is a file or nothing
    bare = Path(text).name == text or Path(text).parent.as_posix().endswith("configs/train")
    if bare and Path(name).name.lower() in by_name:
        return by_name[Path(name).name.lower()]
    where = " (no such file: a path is not read as a shipped name)" if not bare else ""
    raise ConfigError(f"no training config {str(path)!r}{where}; a path to a YAML file, or a shipped name: {', '.join(shipped)}")


def _counts(key: str) -> bool:
    """Whether the dotted config key names an integer field of :class:`TrainConfig` (``env.n_envs``, ``seed``...), a list
    of integers (``env.player_counts``, ``ppo.net_arch``), or an integer field of the rules it holds
    (``rules.turn_limit``: :class:`RulesConfig`'s)."""
    model: Any = TrainConfig
    *sections, last = key.split(".")
    if sections in (["rules"], ["eval", "rules"]):  # (a mapping of rule switches: RulesConfig's own fields say)
        kind = get_type_hints(RulesConfig).get(last)
    else:
        for part in sections:
            field = model.model_fields.get(part)
            model = field.annotation if field is not None else None
            if not (isinstance(model, type) and issubclass(model, BaseModel)):
                return False
        field = model.model_fields.get(last)
        kind = field.annotation if field is not None else None

    def whole(t: Any) -> bool:  # (int, or Annotated[int, ...])
        return t is int or (get_origin(t) is Annotated and get_args(t)[0] is int)

    kinds = (kind, *get_args(kind)) if kind is not None else ()
    return any(whole(k) or (get_origin(k) is list and len(get_args(k)) == 1 and whole(get_args(k)[0])) for k in kinds)


def _whole_counts(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``data`` with each whole float at an integer key (:func:`_counts`) made an int: ``1e3`` or ``16.0`` for a count
    reads as 1000 or 16, in a YAML file as in a ``--set`` override; a fraction stays, for the schema to refuse."""
    out: dict[str, Any] = {}
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out[k] = _whole_counts(v, f"{key}.")
        elif type(v) is float and v.is_integer() and _counts(key):  # (a plain float: a numpy one is refused as before)
            out[k] = int(v)
        elif isinstance(v, list) and _counts(key):  # (a list of counts: env.player_counts, ppo.net_arch)
            out[k] = [int(x) if type(x) is float and x.is_integer() else x for x in v]
        else:
            out[k] = v
    return out


def apply_overrides(data: Mapping[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """``["ppo.learning_rate=1e-4", "env.n_envs=8"]`` applied to a nested dict (a copy). A switch set in ``rules`` or
    ``eval.rules`` that the dict leaves out goes into the section's default mapping (``rules.num_players=3`` keeps
    the default ``fast`` preset), and an override of a ``rules`` switch sets it in ``eval.rules`` too where the
    config had it the same in both (:func:`_follow_eval_rules`).

    Raises:
        ConfigError: an override without ``=``, or one into a key that is not a section.
    """
    _check_plain(data, "config")
    before = _with_default_rules(json.loads(json.dumps(dict(data))))
    out = json.loads(json.dumps(dict(data)))
    settings = parse_settings(overrides, what="a training config key such as ppo.learning_rate")
    for key, value in settings.items():
        item = f"{key}={value}"
        node = out
        parts = key.split(".")
        if parts[0] == "rules" and len(parts) > 1 and "rules" not in out:
            out["rules"] = json.loads(json.dumps(before["rules"]))
        if parts[:2] == ["eval", "rules"] and len(parts) > 2 and "rules" not in (out.get("eval") or {}):
            if isinstance(out.setdefault("eval", {}), dict):
                out["eval"]["rules"] = json.loads(json.dumps(before["eval"]["rules"]))
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"override {item!r}: {part!r} is not a section")
        node[parts[-1]] = value
    _follow_eval_rules(before, out, settings)
    return out


_UNSET = object()


def _with_default_rules(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with ``rules`` and ``eval.rules`` at their schema defaults where it leaves them out (in place)."""
    data.setdefault("rules", TrainConfig.model_fields["rules"].get_default(call_default_factory=True))
    ev = data.setdefault("eval", {})
    if isinstance(ev, dict):
        ev.setdefault("rules", EvalSection.model_fields["rules"].get_default(call_default_factory=True))
    return data


def _follow_eval_rules(before: dict[str, Any], out: dict[str, Any], settings: Mapping[str, Any]) -> None:
    """Give ``eval.rules`` (in ``out``, in place) each rules switch an override set (``rules.KEY=...``, or a whole
    ``rules=...``: each switch of either mapping) where ``before`` (the config with its sections' defaults) had the
    switch the same in ``rules`` and ``eval.rules`` (or in neither), and no override sets it in ``eval.rules``:
    ``--set rules.num_players=3`` on a 2-player config evaluates 3-player games, while a switch the file sets apart
    for evaluation (``long``'s training turn limit) stays apart. Nothing follows into ``eval.rules: null`` (it plays
    the training rules already), nor from ``rules`` that an override made other than a mapping (the schema
    refuses it)."""
    rules, ev = before.get("rules"), before.get("eval")
    ev_rules = ev.get("rules") if isinstance(ev, dict) else None
    final = out.get("rules")
    if not (isinstance(rules, dict) and isinstance(ev_rules, dict) and isinstance(final, dict)):
        return
    if any(k in ("eval", "eval.rules") for k in settings):
        return
    switches: dict[str, None] = {}
    for key in settings:
        if key == "rules":
            switches.update(dict.fromkeys([*rules, *final]))
        elif key.startswith("rules.") and key.count(".") == 1:
            switches[key[len("rules.") :]] = None
    known = {"preset", *RulesConfig.options()}  # (an unknown switch is refused once, under rules, not again under eval)
    followed = [
        k
        for k in switches
        if k in known and f"eval.rules.{k}" not in settings and rules.get(k, _UNSET) == ev_rules.get(k, _UNSET)
    ]
    if not followed:
        return
    ev_out = out.setdefault("eval", {})
    if not isinstance(ev_out, dict):
        return
    target = ev_out.setdefault("rules", json.loads(json.dumps(ev_rules)))
    if not isinstance(target, dict):
        return
    for k in followed:
        if k in final:
            target[k] = json.loads(json.dumps(final[k]))
        else:
            target.pop(k, None)


def load_config(path: str | os.PathLike[str] | None = None, overrides: Sequence[str] = ()) -> TrainConfig:
    """:meth:`TrainConfig.load`, or the schema's defaults (every key at its :class:`TrainConfig` default: the sb3
    trainer's reference settings) when ``path`` is None. The main job (``risk-env train`` without ``--config``)
    is the shipped ``default`` config (:func:`risk_env.train.sb3.run_config`)."""
    if path is None:
        return TrainConfig.from_dict(apply_overrides({}, overrides), source="defaults", overrides=overrides)
    return TrainConfig.load(path, overrides)


def env_kwargs(cfg: TrainConfig) -> dict[str, Any]:
    """The :class:`~risk_env.envs.single_agent.RiskSingleAgentEnv` options of ``cfg`` (all but rules and opponents)."""
    return dict(
        shaping=cfg.env.shaping,
        shaping_gamma=cfg.env.shaping_gamma if cfg.env.shaping_gamma is not None else cfg.ppo.gamma,
        max_turn_steps=cfg.env.max_turn_steps,
        invalid_action=cfg.env.invalid_action,
        observation="graph" if cfg.ppo.policy == "graph" else "flat",
        turn_feature=cfg.env.turn_feature,
    )
