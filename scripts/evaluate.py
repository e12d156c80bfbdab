"""Evaluate agents against each other (thin wrapper over :func:`risk_env.tools.evaluation.main`).

    python scripts/evaluate.py balanced random --games 100 --rules fast --out results/balanced_vs_random
    python scripts/evaluate.py random aggressive continent balanced --round-robin --games 100 --rules fast
    python scripts/evaluate.py runs/ppo/model.zip random --games 200 --rules fast

Run ``python scripts/evaluate.py --help`` for every option.
"""

from __future__ import annotations

import sys

from risk_env._extras import run_main

if __name__ == "__main__":
    sys.exit(run_main("risk_env.tools.evaluation", "eval", "evaluating agents"))
