"""Plot training curves (thin wrapper over :func:`risk_env.train.curves.main`).

    python scripts/plot_training.py runs/default -o docs/training_curves.png
    python scripts/plot_training.py runs/default runs/2p -o curves.png   # several runs in one figure

Win rate against each evaluated opponent with its 95% interval, over learner decisions
and over wall time, from each run's evals.jsonl and results.json (docs/training.md).
"""

from __future__ import annotations

import sys

from risk_env._extras import run_main

if __name__ == "__main__":
    sys.exit(run_main("risk_env.train.curves", "train", "training curves"))
