"""Reference training: MaskablePPO from YAML configs (:mod:`~risk_env.train.sb3`,
extra ``train``) and the RLlib multi-agent path (:mod:`~risk_env.train.rllib`,
extra ``rllib``).
"""
