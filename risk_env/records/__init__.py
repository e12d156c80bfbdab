"""Seeing and keeping games: JSON game records with exact replay
(:mod:`~risk_env.records.record`, :mod:`~risk_env.records.replay`), the text board
(:mod:`~risk_env.records.ansi`) and the picture of the board
(:mod:`~risk_env.records.draw`, needs the ``render`` extra).
"""
