"""Playing in a browser: ``risk-env serve`` starts a local web app where a person plays against agents.

:mod:`risk_env.web.session` is the game (the AEC env, the agents, the record), with no web framework;
:mod:`risk_env.web.app` serves it with FastAPI (the ``web`` extra: ``pip install 'risk_env[web]'``) and
the page in ``risk_env/web/static/``, which draws the board with :mod:`risk_env.records.svg` and sends
the person's clicks back as action ids. The page is told only what the person's seat may know (no seed,
no other seat's cards or mission); a game's record, which holds its seed, is the person's once the game is
over, and a game without a given seed gets one from fresh entropy.
"""
