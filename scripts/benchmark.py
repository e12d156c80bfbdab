"""Speed benchmark next to PettingZoo's classic games.

``risk-env bench`` under another name (its options, its help).

    python scripts/benchmark.py --quick
    python scripts/benchmark.py --json results/bench.json

Run ``python scripts/benchmark.py --help`` for every option.
"""

import sys

from risk_env.tools.console import main

if __name__ == "__main__":
    main(sys.argv[1:], command="bench", prog_name="python scripts/benchmark.py")
