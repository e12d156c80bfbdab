"""Play in a browser against agents (a local web app).

``risk-env serve`` under another name (its options, its help).

    python scripts/serve.py --players 2 --rules fast --agents ppo-2p --record game.json

Run ``python scripts/serve.py --help`` for every option.
"""

import sys

from risk_env.tools.console import main

if __name__ == "__main__":
    main(sys.argv[1:], command="serve", prog_name="python scripts/serve.py")
