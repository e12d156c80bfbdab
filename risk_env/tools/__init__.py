"""Tools around the environment: evaluation of agents
(:mod:`~risk_env.tools.evaluation`), the soak test (:mod:`~risk_env.tools.soak`),
the benchmark (:mod:`~risk_env.tools.benchmark`) and the ``risk-env`` command
(:mod:`~risk_env.tools.cli`).
"""
