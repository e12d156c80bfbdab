"""Tools around the environment: the one loop that drives agents through a game
(:mod:`~risk_env.tools.match`), evaluation of agents (:mod:`~risk_env.tools.evaluation`
plays the games, :mod:`~risk_env.tools.stats` scores them), the soak test
(:mod:`~risk_env.tools.soak`, its checks in :mod:`~risk_env.tools.soak_checks`),
the benchmark (:mod:`~risk_env.tools.benchmark`) and the ``risk-env`` command
(:mod:`~risk_env.tools.cli`, with ``watch`` in :mod:`~risk_env.tools.watch`).
"""
