"""Train a MaskablePPO agent (thin wrapper over :func:`risk_env.train.sb3.main`).

    python scripts/train.py                                 # configs/train/default.yaml: 2 players, ~10 min on 2 CPU cores
    python scripts/train.py --config 4p                     # a shipped config by name, or a path
    python scripts/train.py --config long --set env.n_envs=32
    python scripts/train.py --resume runs/default           # continue from the newest checkpoint

Run ``python scripts/train.py --help`` for every option; docs/training.md explains the configs.
"""

from __future__ import annotations

import sys

from risk_env._extras import run_main

if __name__ == "__main__":
    sys.exit(run_main("risk_env.train.sb3", "train", "training"))
