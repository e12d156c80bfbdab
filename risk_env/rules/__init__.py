"""The rules of the game: pure Python/numpy, no PettingZoo or Gymnasium import.

:class:`~risk_env.rules.engine.Game` holds a game's static facts (map, rules,
precomputed tables, the variants its rules turn on) and applies
:class:`~risk_env.rules.moves.Move` values to a :class:`~risk_env.rules.state.GameState`:
setup, the turn and battles in :mod:`~risk_env.rules.engine`, with
:mod:`~risk_env.rules.legality`, :mod:`~risk_env.rules.notation`,
:mod:`~risk_env.rules.outcome` and :mod:`~risk_env.rules.checks` around it;
:mod:`~risk_env.rules.moves` holds the table of move kinds, :mod:`~risk_env.rules.state`
the declared position, :mod:`~risk_env.rules.knowledge` what one seat may know of it,
:mod:`~risk_env.rules.config` the rule switches and presets, :mod:`~risk_env.rules.map`
the boards (JSON files in ``risk_env/rules/maps/``), :mod:`~risk_env.rules.cards` the set
trades, :mod:`~risk_env.rules.dice` and :mod:`~risk_env.rules.odds` the exact chance
outcomes. Each rules variant is a module of its own with the hooks of
:mod:`~risk_env.rules.variant`, listed by :mod:`~risk_env.rules.variants`: stars trades
(:mod:`~risk_env.rules.stars`), the expert dice rules (:mod:`~risk_env.rules.expert_dice`),
secret missions (:mod:`~risk_env.rules.missions`), capitals (:mod:`~risk_env.rules.capitals`)
and the allied army (:mod:`~risk_env.rules.allied`). The rules themselves are described in
``docs/rules.md``.
"""
