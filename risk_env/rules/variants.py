"""The registry of rules variants: :data:`VARIANTS`, one :class:`~risk_env.rules.variant.Variant`
subclass per variant, each in a module of its own.

=====================  ==========================================  =========  =================================
variant                switch                                      rule       module
=====================  ==========================================  =========  =================================
stars trades           ``card_trade="stars"``                      §6         :mod:`risk_env.rules.stars`
expert dice rules      ``reroll_with_card``, ``die_to_six``        §8         :mod:`risk_env.rules.expert_dice`
secret missions        ``secret_missions``                         §8         :mod:`risk_env.rules.missions`
capitals               ``capitals``                                §8         :mod:`risk_env.rules.capitals`
the allied army        ``two_player="allied"``                     §7         :mod:`risk_env.rules.allied`
=====================  ==========================================  =========  =================================

A :class:`~risk_env.rules.engine.Game` plays with every variant whose
:meth:`~risk_env.rules.variant.Variant.applies` says so for its rules, in this order.
Adding a variant is a new module, one line here, and its tests (CONTRIBUTING.md).

>>> [v.name for v in variants_of(RulesConfig(secret_missions=True, capitals=True))]
['secret_missions', 'capitals']
"""

from __future__ import annotations

from .allied import AlliedArmy
from .capitals import Capitals
from .config import RulesConfig
from .expert_dice import ExpertDice
from .missions import SecretMissions
from .stars import StarsTrades
from .variant import Variant

__all__ = ["VARIANTS", "variants_of"]

VARIANTS: tuple[type[Variant], ...] = (StarsTrades, ExpertDice, SecretMissions, Capitals, AlliedArmy)
"""Every rules variant, in the order their hooks run."""


def variants_of(config: RulesConfig) -> tuple[type[Variant], ...]:
    """The variants rules ``config`` play with."""
    return tuple(v for v in VARIANTS if v.applies(config))
