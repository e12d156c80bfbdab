"""Evaluate agents against each other: win rates with 95% intervals, ratings.

``risk-env evaluate`` under another name (its options, its help).

    python scripts/evaluate.py balanced random --games 100 --rules fast --out results/balanced_vs_random
    python scripts/evaluate.py random aggressive continent balanced --round-robin --games 100 --rules fast
    python scripts/evaluate.py runs/ppo/model.zip random --games 200 --rules fast

Run ``python scripts/evaluate.py --help`` for every option.
"""

import sys

from risk_env.tools.console import main

if __name__ == "__main__":
    main(sys.argv[1:], command="evaluate", prog_name="python scripts/evaluate.py")
