"""Shipped configuration files (package data): ``train/*.yaml`` are the training configs
read by :mod:`risk_env.train.config` (``--config default``, ``2p``, ``4p``, ``long``);
``rules/*.yaml`` are rules files read by :meth:`risk_env.rules.config.RulesConfig.from_file`
(``--rules stars``)."""
