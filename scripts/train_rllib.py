"""Multi-agent self-play PPO with Ray RLlib (thin wrapper over :func:`risk_env.train.rllib.main`).

Needs the ``rllib`` extra: ``pip install -e ".[rllib]"``.

    python scripts/train_rllib.py --players 2 --iterations 20                       # local: ray.init()
    python scripts/train_rllib.py --address auto --env-runners 64 --iterations 2000  # on a Ray cluster, unchanged

Run ``python scripts/train_rllib.py --help`` for every option; docs/training.md has the details.
"""

from __future__ import annotations

import sys

from risk_env._extras import run_main

if __name__ == "__main__":
    sys.exit(run_main("risk_env.train.rllib", "rllib", "training with RLlib"))
