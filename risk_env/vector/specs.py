"""The batched policy a spec names: the one reading of an entrant's or an opponent's name on the batched engine.

A spec is ``"random"``, a batched heuristic (``"aggressive"``, ``"balanced"``, ``"continent"``: :mod:`.agents`), a
learned network (a shipped pretrained name such as ``"ppo-4p"``, a sb3-contrib ``MaskablePPO`` ``.zip`` with an
``MlpPolicy`` or the graph policy, a policy file ``.pt`` of the on-device trainer; either suffix may be left out, as
for ``load_agent``), or a :class:`~risk_env.vector.agents.BatchedPolicy` object. Networks play their most probable
legal id (:class:`~risk_env.vector.network.NetworkPolicy`), as ``load_agent`` builds them. Batched evaluation
(:mod:`risk_env.tools.vector_evaluation`), the learner-seat env's opponents
(:class:`~risk_env.vector.learner.LearnerEnv`), the league's baselines and the device trainer's teachers read specs
here.

>>> from risk_env.vector import VectorEnv
>>> from risk_env.vector.specs import batched_policy
>>> game = VectorEnv(4, seed=0, preset="fast", num_players=4).game
>>> [batched_policy(s, game, game.generator).name for s in ("balanced", "ppo-4p")]
['balanced', 'ppo-4p']
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any

from ..agents.registry import (
    PRETRAINED,
    canonical_spec,
    check_not_pretrained_file,
    graph_policy_path,
    network_form,
    pretrained_path,
)
from ..errors import AgentRulesError, ConfigError
from .agents import BATCHED_HEURISTICS, make_policy
from .network import NetworkPolicy, load_maskable_ppo

__all__ = ["batched_policy", "spec_text"]


def batched_policy(spec: Any, game: Any, generator: Any) -> Any:
    """The batched policy ``spec`` names (module docstring) for the engine ``game`` (a
    :class:`~risk_env.vector.VectorGame`); ``generator`` is the random policy's and the networks' (where they sample).
    A batched policy object (a callable with a ``name``, not an agent) is returned as it is.

    Raises:
        ConfigError: a spec the batched engine cannot play (the message lists what it takes), or rules the
            batched heuristics do not play; AgentRulesError (a ConfigError): a model that does not fit the rules;
        RiskError: a model file that is missing or unreadable.
    """
    if isinstance(spec, Path):
        spec = str(spec)
    if isinstance(spec, str):
        key = spec.strip()
        if key.lower() in ("random", *BATCHED_HEURISTICS):
            return make_policy(key.lower(), game, generator)
        kind = network_form(key)

        check_not_pretrained_file(key)

        p = Path(key)
        name = p.stem
        if kind == "pretrained":  # a MaskablePPO checkpoint (.zip) or a graph policy file (.pt)
            p, name = pretrained_path(key), key.lower()
            policy_file = p if p.suffix == ".pt" else None
        else:
            policy_file = graph_policy_path(key)  # (as load_agent: "runs/x/model" for runs/x/model.pt)
            name = policy_file.stem if policy_file is not None else name
        if policy_file is not None:
            from ..train.graph_net import check_plays, load_policy, trained_turn_feature

            net, meta = load_policy(policy_file, device=game.device)
            try:
                check_plays(net, game.game, meta.get("rules"))  # (the batched engine's sizes are its reference Game's)
            except ConfigError as e:  # (named as the reference backend names it: risk_env.agents.base.check_fits_game)
                raise AgentRulesError(name, str(e)) from None
            return NetworkPolicy(game, net, "graph", True, generator, name=name, turn_feature=trained_turn_feature(meta))
        if kind == "zip" or kind == "pretrained":
            from ..agents.registry import pretrained_rules

            trained = pretrained_rules(name) if key.lower() in PRETRAINED else None
            return load_maskable_ppo(p, game, generator=generator, trained_rules=trained)
        raise ConfigError(
            f"the batched engine cannot play {spec!r}: no batched policy, pretrained agent or model file has that name; "
            f"it takes {_forms()}, or a batched policy object (other agents, such as 'module:callable', play on the "
            "reference engine only: backend='reference')"
        )
    if callable(spec) and not hasattr(spec, "act"):
        if isinstance(getattr(spec, "name", None), str):
            return spec
        if takes_policy_call(spec):  # (told it was an agent object: what it lacks is the BatchedPolicy protocol's name)
            raise ConfigError(
                f"the batched engine cannot play {spec!r}: a batched policy object (policy(state, mask, active) -> ids) "
                "needs a 'name' attribute, a str that names it in the results"
            )
    raise ConfigError(
        f"the batched engine cannot play {spec!r} (an agent object plays one game at a time, on the reference engine "
        f"only: backend='reference'); it takes {_forms()}, or a batched policy object"
    )


def takes_policy_call(obj: Any) -> bool | None:
    """Whether ``obj``'s signature takes a batched policy's call ``policy(state, mask, active)``, three positional
    arguments (an agent's callable ``f(observation, info)`` takes two); None where it cannot be read (a builtin)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    try:
        sig.bind(None, None, None)
    except TypeError:
        return False
    return True


def _forms() -> str:
    """What the batched engine plays by name or file (besides batched policy objects), for its refusals."""
    names = ", ".join(repr(name) for name in ("random", *BATCHED_HEURISTICS))
    return f"{names}, a pretrained agent ({', '.join(PRETRAINED)}), a MaskablePPO .zip, a policy .pt"


def spec_text(spec: Any) -> str | None:
    """A spec as text, the form that names its policy (one policy per name in an opponent list or a league): a
    shipped name in the registry's form (``" Balanced"`` is ``"balanced"``), a path (``str`` or ``os.PathLike``) as
    text; None for anything else (a policy object, or what :func:`batched_policy` refuses).

    >>> spec_text(" PPO-4P"), spec_text(Path("runs/x/model.pt")), spec_text(print)
    ('ppo-4p', 'runs/x/model.pt', None)
    """
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    return canonical_spec(spec).strip() if isinstance(spec, str) else None
