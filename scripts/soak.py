"""Soak test: many seeded games with every invariant checked at every step.

``risk-env soak`` under another name (its options, its help).

    python scripts/soak.py --games 100000 --out soak.json
    python scripts/soak.py --games 1 --start 4711 --workers 1     # replay one game

Run ``python scripts/soak.py --help`` for every option.
"""

import sys

from risk_env.tools.console import main

if __name__ == "__main__":
    main(sys.argv[1:], command="soak", prog_name="python scripts/soak.py")
