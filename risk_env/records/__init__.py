"""Seeing and keeping games: the JSON game record and its exact replay
(:mod:`~risk_env.records.record`, :mod:`~risk_env.records.replay`), recording games as
they are played (:mod:`~risk_env.records.recorder`), the text board
(:mod:`~risk_env.records.ansi`) and the picture of the board
(:mod:`~risk_env.records.layout` and :mod:`~risk_env.records.draw`, needs the ``render`` extra),
and the frames the environments' ``render()`` returns (:mod:`~risk_env.records.frames`).
"""
