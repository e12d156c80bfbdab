"""Reference training: MaskablePPO (:mod:`~risk_env.train.sb3`, extra ``train``) from
YAML configs (:mod:`~risk_env.train.config`; the shipped ones are package data of
``risk_env.configs``) and the RLlib multi-agent path (:mod:`~risk_env.train.rllib`,
extra ``rllib``).
"""
