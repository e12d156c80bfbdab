"""Play at the terminal against agents.

``risk-env play`` under another name (its options, its help).

    python scripts/play.py --players 3 --agents balanced
    python scripts/play.py --players 2 --rules fast --agents ppo-2p --record game.json

Run ``python scripts/play.py --help`` for every option.
"""

import sys

from risk_env.tools.console import main

if __name__ == "__main__":
    main(sys.argv[1:], command="play", prog_name="python scripts/play.py")
