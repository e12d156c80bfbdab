"""The rules of the game: pure Python/numpy, no PettingZoo or Gymnasium import.

:class:`~risk_env.rules.engine.Game` holds a game's static facts (map, rules,
precomputed tables) and applies :class:`~risk_env.rules.moves.Move` values to a
:class:`~risk_env.rules.state.GameState` (with :mod:`~risk_env.rules.setup`,
:mod:`~risk_env.rules.battle`, :mod:`~risk_env.rules.legality`,
:mod:`~risk_env.rules.notation`, :mod:`~risk_env.rules.outcome` and
:mod:`~risk_env.rules.checks`); :mod:`~risk_env.rules.config` holds the
rule switches and presets, :mod:`~risk_env.rules.map` the boards (JSON files in
``risk_env/rules/maps/``), :mod:`~risk_env.rules.cards` the set trades,
:mod:`~risk_env.rules.dice` and :mod:`~risk_env.rules.odds` the exact chance
outcomes, :mod:`~risk_env.rules.missions` the secret missions and the capitals
win (docs/rules.md §8). The rules themselves are described in ``docs/rules.md``.
"""
