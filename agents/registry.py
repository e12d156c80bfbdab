"""Agents by name: ``load_agent(spec)``.

A *spec* is one of

* a baseline's name: ``"random"``, ``"aggressive"``, ``"continent"``, ``"balanced"``
  (see :data:`BASELINES`);
* a pretrained agent's name: ``"ppo-2p"``, ``"ppo-3p"``, ``"ppo-4p"``, ``"ppo-5p"``, ``"ppo-6p"``, ``"ppo-2p-0.1"``,
  ``"ppo-4p-0.1"``, ``"ppo-4p-500k"`` (see
  :data:`PRETRAINED`; needs the ``train`` extra), a checkpoint shipped in ``risk_env/agents/models/``;
* a path to a saved sb3-contrib MaskablePPO model: ``"runs/x/model.zip"``
  (:class:`~.policy.MaskablePPOAgent`);
* a path to an RLlib checkpoint folder written by ``risk-env train-rllib``: ``"runs/rllib"``
  (:class:`~.rllib_policy.RLlibPolicyAgent`; the ``rllib`` extra);
* a path to a graph policy file of the on-device trainer: ``"runs/x/model.pt"``, or ``"runs/x/model"``
  where ``runs/x/model.pt`` is a file (:func:`graph_policy_path`; :class:`~.policy.GraphNetAgent`,
  :func:`risk_env.train.graph_net.load_policy`);
* ``"package.module:attr"``: an :class:`~.base.Agent` subclass (built with
  ``seed=``), an agent object, a factory returning one (a function of no arguments, or of ``seed=``, called
  once), or a plain function ``f(observation, info) -> int`` (wrapped in :class:`~.base.CallableAgent`); a
  function of other arguments is refused (:class:`~risk_env.errors.RiskError`);
* an agent object (returned as is), an object with ``act(observation, info) -> int`` and
  perhaps ``name`` and ``reset(seed)`` (wrapped; the class needs not derive from
  :class:`~.base.Agent`), or a callable (wrapped).

String specs are what :func:`risk_env.tools.evaluation.evaluate` sends to its worker
processes; objects must be picklable to cross them.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from risk_env.errors import RiskError, UnknownAgentError, check_seed
from risk_env.rules.config import resolve_rules
from risk_env.rules.engine import Game

from .aggressive import AggressiveAgent
from .balanced import BalancedAgent
from .base import Agent, AgentLike, CallableAgent, path_is, shown_spec
from .continent import ContinentAgent
from .random_agent import RandomAgent
from .rllib_policy import is_rllib_checkpoint

__all__ = [
    "BASELINES",
    "HEURISTICS",
    "PRETRAINED",
    "canonical_spec",
    "check_spec",
    "check_not_pretrained_file",
    "graph_policy_path",
    "is_lineup",
    "lineup_parts",
    "load_agent",
    "misread_lineup",
    "agent_label",
    "pretrained_path",
    "pretrained_rules",
    "spec_forms",
]

BASELINES: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "aggressive": AggressiveAgent,
    "continent": ContinentAgent,
    "balanced": BalancedAgent,
}
"""Shipped agents by name."""

HEURISTICS = ("aggressive", "continent", "balanced")
"""Names of the scripted heuristic baselines."""

PRETRAINED: dict[str, str] = {
    "ppo-2p": "ppo-2p.pt",
    "ppo-3p": "ppo-3p.pt",
    "ppo-4p": "ppo-4p.pt",
    "ppo-5p": "ppo-5p.pt",
    "ppo-6p": "ppo-6p.pt",
    "ppo-2p-0.1": "ppo-2p-0.1.zip",
    "ppo-4p-0.1": "ppo-4p-0.1.zip",
    "ppo-4p-500k": "ppo-4p-500k.pt",
}
"""Pretrained agents shipped with the package: name -> file in ``risk_env/agents/models/``
(``agents/models/`` in the repository): MaskablePPO checkpoints (``.zip``) and graph policy files of the
device trainer (``.pt``), all the same territory-graph network.

``ppo-2p-0.1`` (the 0.1 release's ``ppo-2p``): trained by ``configs/train/ppo-2p-0.1.yaml`` for 2-player games;
``ppo-2p``: ``ppo-2p-0.1`` trained on for 2-player games by ``configs/train/ppo-2p.yaml``, the average of the weights
of that run's checkpoints from 250,000 decisions on; ``ppo-4p-0.1`` (the 0.1 release's
``ppo-4p``): ``ppo-2p-0.1`` trained on for 4-player games by ``configs/train/ppo-4p-0.1.yaml``;
``ppo-4p``: ``ppo-4p-0.1`` trained on for 4-player games by ``configs/train/ppo-4p.yaml``, the average of the
weights of that run's checkpoints from 500,000 decisions on (``checkpoint.average_from``); ``ppo-4p-500k``: that
run's checkpoint at 500,525 decisions (the 0.2 development ``ppo-4p``); ``ppo-3p``, ``ppo-5p`` and ``ppo-6p``:
``ppo-4p-500k`` trained on for 3-, 5- and 6-player games by ``configs/train/ppo-3p.yaml``, ``ppo-5p.yaml`` and
``ppo-6p.yaml``. All under the ``fast`` preset. Win rates: docs/baselines.md.
"""

_PRETRAINED_ZIP_RULES: dict[str, dict[str, Any]] = {
    "ppo-2p-0.1": {"preset": "fast", "num_players": 2},
    "ppo-4p-0.1": {"preset": "fast", "num_players": 4},
}
"""The ``rules`` of the shipped training configs of the ``.zip`` agents, which keep none in their files
(:func:`pretrained_rules`)."""


def pretrained_path(name: str) -> Path:
    """The checkpoint file of a pretrained agent (a key of :data:`PRETRAINED`).

    Raises:
        UnknownAgentError: ``name`` is not a pretrained agent (the message lists them).
    """
    key = name.strip().lower() if isinstance(name, str) else None
    if key not in PRETRAINED:
        raise UnknownAgentError(f"no pretrained agent {name!r}: use one of {', '.join(PRETRAINED)}")
    return Path(__file__).with_name("models") / PRETRAINED[key]


def pretrained_rules(name: str) -> dict[str, Any] | None:
    """The rules a pretrained MaskablePPO agent (``.zip``: ``ppo-2p-0.1``, ``ppo-4p-0.1``) was trained under, resolved
    (:meth:`RulesConfig.to_dict <risk_env.rules.config.RulesConfig.to_dict>`): the ``rules`` of its shipped training
    config (``configs/train/<name>.yaml``, which the tests hold equal), for the rule switches an
    :class:`~risk_env.errors.AgentRulesError` names (:func:`risk_env.train.graph_net.trained_rules_note`). None for a
    graph policy file (``.pt``), which keeps its own (``meta["rules"]``).

    Raises:
        UnknownAgentError: ``name`` is not a pretrained agent.
    """
    if pretrained_path(name).suffix != ".zip":
        return None
    return resolve_rules(rules=_PRETRAINED_ZIP_RULES[name.strip().lower()]).to_dict()


def spec_forms() -> str:
    """Every form an agent spec takes, in one line (for help texts and error messages): the names
    of :data:`BASELINES` and :data:`PRETRAINED`, then the file and module forms.

    >>> spec_forms().split(", a ")[0]
    'random, aggressive, continent, balanced, ppo-2p, ppo-3p, ppo-4p, ppo-5p, ppo-6p, ppo-2p-0.1, ppo-4p-0.1, ppo-4p-500k'
    """
    names = ", ".join([*BASELINES, *PRETRAINED])
    files = (
        "a MaskablePPO model file (path/model.zip), a graph policy file of the device trainer (path/model.pt), "
        "an RLlib checkpoint folder (risk-env train-rllib's)"
    )
    return f"{names}, {files}, or 'module:callable'"


def check_spec(spec: str) -> None:
    """Refuse a text spec that is none of the forms :func:`load_agent` reads (a shipped name, a model
    file or folder, ``module:attr``), without building the agent: a config can name an unknown agent's
    spec before anything else is read from it. A spec of a known form may still fail to load (a missing
    file, a failed import); :func:`load_agent` says so.

    >>> check_spec("balanced")
    >>> check_spec("balancd")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    risk_env.errors.UnknownAgentError: unknown agent 'balancd': use one of random, aggressive, continent, balanced, ...

    Raises:
        UnknownAgentError: an empty spec, or a text of none of the forms (the message lists the shipped names
            and the other forms, :func:`spec_forms`); a model file that is not there and whose name starts
            like a line-up (``"random+nets/x.pt"``: the message says to put the file first).
    """
    key = spec.strip()
    if not key:
        raise UnknownAgentError(f"empty agent spec {shown_spec(spec)}: use one of {spec_forms()}")
    if key.lower() in BASELINES or key.lower() in PRETRAINED or is_rllib_checkpoint(key):
        return
    if graph_policy_path(key) is not None or _is_model_path(key):
        misread = misread_lineup(key)
        if misread is not None:
            raise UnknownAgentError(misread)
        return
    mod_name, sep, attr = key.partition(":")
    if sep and mod_name and attr:
        return
    if is_lineup(key):  # (the training configs' and logs' form of a table's other seats)
        parts = " ".join(p.strip() for p in lineup_parts(key))
        raise UnknownAgentError(
            f"unknown agent {shown_spec(spec)}: a line-up 'a+b+c' names the other seats in a training config; "
            f"give its agents one by one ({parts})"
        )
    raise UnknownAgentError(f"unknown agent {shown_spec(spec)}: use one of {spec_forms()}")


def is_lineup(spec: str) -> bool:
    """Whether a text spec is a line-up ``"a+b+c"``: one agent spec per other seat, joined by ``+`` (the training
    configs' ``opponents.baselines`` and ``eval.opponents``). A spec that ends in ``.zip`` or ``.pt`` is a model
    file, whose name may hold a ``+``.

    >>> is_lineup("aggressive+balanced"), is_lineup("balanced"), is_lineup("runs/a+b/model.pt")
    (True, False, False)
    """
    return "+" in spec and not spec.endswith((".zip", ".pt"))


def misread_lineup(spec: str) -> str | None:
    """Why a spec that ends in ``.pt`` or ``.zip`` and is not there reads as a line-up mistaken for one file name
    (``"random+nets/x.pt"``: :func:`is_lineup` reads such a spec as one file, ``+`` and all), with the line-up put
    right (the file first); None for any other spec. :func:`check_spec` and the training run's check of its
    opponents refuse with it.

    >>> misread_lineup("random+nets/x.pt").split("; ")[-1]
    "for a line-up whose last agent is a model file, put the file first: 'nets/x.pt+random'"
    >>> misread_lineup("nets/a+b.pt") is None, misread_lineup("random+balanced") is None
    (True, True)
    """
    key = spec.strip()
    if not key.endswith((".zip", ".pt")):
        return None
    *parts, last = (p.strip() for p in key.split("+"))
    if not parts or parts[0].lower() not in (*BASELINES, *PRETRAINED) or path_is(key, "exists"):
        return None
    return (
        f"no model file {shown_spec(spec)}: a spec that ends in .pt or .zip is one file, '+' and all; for a line-up "
        f"whose last agent is a model file, put the file first: {'+'.join([last, *parts])!r}"
    )


def canonical_spec(spec: str) -> str:
    """``spec`` with each shipped name (a baseline or a pretrained agent, of each agent of a line-up) as the registry
    writes it: lower case, without spaces around; anything else (a path, ``module:attr``) as given. Names are read
    in any case everywhere (:func:`load_agent`, the batched policies); a training config keeps them in this form.

    >>> canonical_spec(" Balanced "), canonical_spec("PPO-4P+random"), canonical_spec("runs/X/Model.pt")
    ('balanced', 'ppo-4p+random', 'runs/X/Model.pt')
    """

    def one(part: str) -> str:
        key = part.strip().lower()
        return key if key in BASELINES or key in PRETRAINED else part

    return "+".join(one(p) for p in lineup_parts(spec)) if is_lineup(spec) else one(spec)


def lineup_parts(spec: str) -> list[str]:
    """The agent specs of a line-up (:func:`is_lineup`), as written (not stripped); ``[spec]`` for any other spec.

    >>> lineup_parts("aggressive+balanced"), lineup_parts("runs/a+b/model.zip")
    (['aggressive', 'balanced'], ['runs/a+b/model.zip'])
    """
    return spec.split("+") if is_lineup(spec) else [spec]


def graph_policy_path(spec: str) -> Path | None:
    """The graph policy file (``.pt``) a text spec names, or None: the spec itself when it ends in ``.pt``
    (a missing file included: loading it says so), or ``spec + ".pt"`` when that file exists and the spec does not
    end in ``.zip`` (``"runs/x/model"`` for ``runs/x/model.pt``, ``"nets/lr-0.5"`` for ``nets/lr-0.5.pt``: a dot in
    the name is no suffix of its own). :func:`load_agent` and the vector backend of
    :func:`risk_env.evaluate` read a spec through it, so both take the same paths.

    >>> graph_policy_path("runs/x/model.pt").name
    'model.pt'
    >>> graph_policy_path("balanced") is None
    True
    """
    key = spec.strip()
    if key.endswith(".pt"):
        return Path(key)
    if key and not key.endswith(".zip") and path_is(key + ".pt", "file"):
        return Path(key + ".pt")
    return None


def network_form(spec: str) -> str | None:
    """Which network a text spec names, without loading it (and without torch):
    ``"pretrained"`` (a shipped name, in any case), ``"policy"`` (a policy file: a path ending ``.pt``, or naming
    one without its suffix), ``"zip"`` (a MaskablePPO checkpoint: a path ending ``.zip``, or naming one without its
    suffix), or None (no network). The one reading of a spec as a network by the batched engine
    (:func:`risk_env.vector.specs.batched_policy`) and by the training config's check of the device trainer's
    opponents and teachers.

    >>> [network_form(s) for s in ("PPO-4P", "runs/x/model.pt", "a.zip", "balanced", "risk_env.agents:RandomAgent")]
    ['pretrained', 'policy', 'zip', None, None]
    """
    key = spec.strip()
    if key.lower() in PRETRAINED:
        return "pretrained"
    if graph_policy_path(key) is not None:
        return "policy"
    p = Path(key)
    if key and (p.suffix == ".zip" or p.with_name(p.name + ".zip").is_file()):
        return "zip"
    return None


def check_not_pretrained_file(spec: str) -> None:
    """Refuse a model file name that is not there but whose stem is a pretrained agent's name (``"ppo-4p.pt"``,
    ``"ppo-2p.zip"``): the shipped agents are given by name. :func:`load_agent` and the vector backend of
    :func:`risk_env.evaluate` call it before they read a model file.

    Raises:
        RiskError: the message names the file and the name to give instead.

    >>> check_not_pretrained_file("runs/x/model.pt")  # (another file: loading it says whether it is there)
    """
    key = spec.strip()
    p = Path(key)
    if p.suffix in (".pt", ".zip") and p.parent == Path(".") and p.stem.lower() in PRETRAINED and not path_is(p, "exists"):
        raise RiskError(f"no model file at {key!r}: {p.stem.lower()!r} is a pretrained agent, given by its name without a suffix")


def _is_model_path(spec: str) -> bool:
    if not spec:
        return False
    p = Path(spec)
    return spec.endswith(".zip") or path_is(p, "exists") or (p.name != "" and path_is(p.with_name(p.name + ".zip"), "exists"))


class _ActingObject(CallableAgent):
    """An object with ``act(observation, info)`` (its ``name`` and ``reset(seed)`` when it has them) as an agent."""

    def __init__(self, obj: Any) -> None:
        name = getattr(obj, "name", None)
        super().__init__(obj.act, name=name if isinstance(name, str) else type(obj).__name__)
        self.needs_view = bool(getattr(obj, "needs_view", True))
        self.obj = obj

    def reset(self, seed: int | None = None) -> None:
        Agent.reset(self, seed)
        reset = getattr(self.obj, "reset", None)
        if callable(reset):
            reset(seed)

    def check_game(self, game: Game) -> None:
        check = getattr(self.obj, "check_game", None)
        if callable(check):
            check(game)


def _acts(obj: Any) -> bool:
    return not inspect.isclass(obj) and callable(getattr(obj, "act", None))


def _build(obj: Any, seed: int | None, label: str) -> AgentLike:
    agent: Any
    if inspect.isclass(obj):
        cls: Any = obj
        try:
            try:
                agent = cls(seed=seed)
            except TypeError:
                agent = cls()
        except Exception as e:  # (the class's own constructor failed)
            raise RiskError(f"{label!r}: building the agent raised {type(e).__name__}: {e}") from e
        if isinstance(agent, AgentLike):
            return agent
        if _acts(agent):
            return _ActingObject(agent)
        if callable(agent):
            return CallableAgent(agent, name=label)
        raise RiskError(f"{label!r} built a {type(agent).__name__}, which has no act(observation, info) method")
    if isinstance(obj, AgentLike):
        return obj
    if _acts(obj):
        return _ActingObject(obj)
    if callable(obj):
        takes_two, factory_args, sig = _call_forms(obj, seed)
        if takes_two:
            return CallableAgent(obj, name=label)
        if factory_args is not None:  # a factory: what it returns is the agent (an agent object, or a policy function)
            try:
                made = obj(**factory_args)
            except RiskError:  # (the library's own refusal, of its own kind)
                raise
            except Exception as e:  # (the factory's own code failed)
                raise RiskError(f"{label!r}: the agent factory raised {type(e).__name__}: {e}") from e
            if inspect.isclass(made):
                raise RiskError(
                    f"{label!r} is a factory that returned the class {made.__name__}, not an agent: return an agent "
                    f"object (or give the class itself as the spec: it is built with seed=)"
                )
            if isinstance(made, AgentLike):
                return made
            if _acts(made):
                return _ActingObject(made)
            if callable(made) and _call_forms(made, seed)[0]:
                return CallableAgent(made, name=label)
            raise RiskError(
                f"{label!r} is an agent factory (a function of no arguments or of seed) that returned "
                f"{type(made).__name__} {made!r:.40}, not an agent: "
                "return an object with act(observation, info) -> int, or a function f(observation, info) -> int"
            )
        raise RiskError(
            f"{label!r} is a function of {sig}: an agent function takes (observation, info) and returns an action id, "
            "an agent factory takes no arguments (or seed) and returns an agent"
        )
    raise RiskError(
        f"{label!r} is of type {type(obj).__name__}, not an agent, agent class or callable f(observation, info) -> int"
    )


def _call_forms(fn: Any, seed: int | None) -> tuple[bool, dict[str, Any] | None, str]:
    """Whether ``fn`` can be called as ``fn(observation, info)``; the arguments it is called with as a factory (``{}``,
    or ``{"seed": seed}`` where it takes ``seed``, required or not, or ``**kwargs``), None where it is none; and its
    signature's text. Callables without a signature (some builtins) are taken as policy functions."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True, None, "(...)"

    def binds(*args: Any, **kwargs: Any) -> bool:
        try:
            sig.bind(*args, **kwargs)
        except TypeError:
            return False
        return True

    factory = {"seed": seed} if binds(seed=seed) else {} if binds() else None
    return binds(None, None), factory, str(sig)


def load_agent(spec: Any, seed: int | None = None) -> AgentLike:
    """Build the agent a spec names (see the module docstring).

    Args:
        spec: a name, a model path, ``"module:attr"``, an agent or a callable.
        seed: seeds a newly built agent (agents are also re-seeded by ``reset(seed)``).

    Raises:
        UnknownAgentError: an empty spec, or a text that is none of the forms (not a shipped name,
            a model file or folder, or ``module:attr``); the message lists the shipped names
            (:data:`BASELINES`, :data:`PRETRAINED`) and the other forms (:func:`spec_forms`).
            A :class:`~risk_env.errors.RiskError`, as the errors below.
        RiskError: a missing model file, a failed import, or an object that is not an agent.
        ConfigError: ``seed`` is not None or an integer >= 0 (checked for every spec, also those
            a seed does not reach: a learned policy plays deterministically).
    """
    check_seed(seed, allow_none=True)
    if isinstance(spec, AgentLike) and not inspect.isclass(spec):
        return spec
    if isinstance(spec, Path):
        spec = str(spec)
    if isinstance(spec, str):
        check_spec(spec)
        key = spec.strip()
        if key.lower() in BASELINES:
            return BASELINES[key.lower()](seed=seed)
        if key.lower() in PRETRAINED:
            path = pretrained_path(key)
            if path.suffix == ".pt":
                from .policy import GraphNetAgent

                return GraphNetAgent(path, name=key.lower())
            from .policy import MaskablePPOAgent

            return MaskablePPOAgent(path, name=key.lower(), trained_rules=pretrained_rules(key))
        check_not_pretrained_file(key)
        if is_rllib_checkpoint(key):
            from .rllib_policy import RLlibPolicyAgent

            return RLlibPolicyAgent(key, seed=seed)
        policy_file = graph_policy_path(key)
        if policy_file is not None:
            from .policy import GraphNetAgent

            return GraphNetAgent(policy_file)
        if _is_model_path(key):
            from .policy import MaskablePPOAgent

            return MaskablePPOAgent(key)
        mod_name, sep, attr = key.partition(":")
        if sep and mod_name and attr:
            if "/" in mod_name or "\\" in mod_name or mod_name.endswith(".py"):  # (a file's path, not a module's name)
                module = mod_name.replace("\\", "/").rpartition("/")[2].removesuffix(".py")
                raise RiskError(
                    f"agent spec {shown_spec(spec)}: {shown_spec(mod_name)} is a file's path, and module:callable names a "
                    f"module: give {shown_spec(f'{module}:{attr}')}, with the file's folder on Python's path (PYTHONPATH)"
                )
            try:
                mod = importlib.import_module(mod_name)
            except ImportError as e:
                detail = str(e) if len(str(e)) <= 200 else type(e).__name__
                where = f"agent spec {shown_spec(spec)}: cannot import module {shown_spec(mod_name)}"
                raise RiskError(f"{where} ({detail}){_path_hint(mod_name, e)}") from None
            except Exception as e:  # (the module's own code failed: a SyntaxError, an error at import time)
                raise RiskError(
                    f"agent spec {shown_spec(spec)}: importing module {shown_spec(mod_name)} raised {type(e).__name__}: {e}"
                ) from e
            obj: Any = mod
            for part in attr.split("."):
                if not hasattr(obj, part):
                    raise RiskError(
                        f"agent spec {shown_spec(spec)}: module {shown_spec(mod_name)} has no attribute {shown_spec(attr)}"
                    )
                obj = getattr(obj, part)
            return _build(obj, seed, attr.split(".")[-1])
        # (check_spec refuses it)
        raise UnknownAgentError(f"unknown agent {shown_spec(spec)}: use one of {spec_forms()}")  # pragma: no cover
    if _acts(spec):
        return _ActingObject(spec)
    if callable(spec) or inspect.isclass(spec):
        return _build(spec, seed, getattr(spec, "__name__", type(spec).__name__))
    raise RiskError(
        f"cannot make an agent from {type(spec).__name__} {spec!r}: give a spec ({spec_forms()}), "
        "an object with act(observation, info) -> int, or a function f(observation, info) -> int"
    )


def _path_hint(module: str, error: ImportError) -> str:
    """What to do when the module of a ``module:callable`` spec is a file in the working folder that Python does not
    look in (``risk-env`` and ``python scripts/...`` put their own folder on the path, not the working one)."""
    top = module.partition(".")[0]
    if not isinstance(error, ModuleNotFoundError) or error.name != top:
        return ""
    try:
        here = Path(f"{top}.py").is_file() or Path(top, "__init__.py").is_file()
    except (OSError, ValueError):  # (a name too long for a path, or holding a NUL: no file of that name)
        return ""
    if not here:
        return ""
    return f"; {top!r} in the working folder is not on Python's path: run with PYTHONPATH=. or install it"


def agent_label(spec: Any) -> str:
    """A short label for a spec without building it: the baseline's or pretrained agent's name (in lower case, as
    :func:`load_agent` names the agent), the model file's stem, the attribute of ``module:attr``, or the object's
    ``name``."""
    if isinstance(spec, Path):
        spec = str(spec)
    if isinstance(spec, str):
        key = spec.strip()
        if key.lower() in BASELINES or key.lower() in PRETRAINED:
            return key.lower()
        policy_file = graph_policy_path(key)  # (as load_agent reads it, and names the agent: the file's stem)
        if policy_file is not None:
            return policy_file.stem
        if _is_model_path(key):
            p = Path(key)
            return p.stem if p.suffix == ".zip" else p.name
        if ":" in key:
            return key.rpartition(":")[2].split(".")[-1]
        return key
    name = getattr(spec, "name", None)
    if isinstance(name, str):
        return name
    f: Callable[..., Any] = spec
    return getattr(f, "__name__", type(spec).__name__)
