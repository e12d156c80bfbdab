"""Soak test: many seeded games with every invariant checked at every step
(thin wrapper over :func:`risk_env.tools.soak.main`).

    python scripts/soak.py --games 100000 --out soak.json
    python scripts/soak.py --games 1 --start 4711 --workers 1     # replay one game

Run ``python scripts/soak.py --help`` for every option.
"""

from __future__ import annotations

import sys

from risk_env.tools.soak import main

if __name__ == "__main__":
    sys.exit(main())
