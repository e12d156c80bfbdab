"""Multi-agent self-play PPO with Ray RLlib (the 'rllib' extra).

``risk-env train-rllib`` under another name (its options, its help).

    python scripts/train_rllib.py --players 2 --iterations 20                       # local: ray.init()
    python scripts/train_rllib.py --address auto --env-runners 64 --iterations 2000  # on a Ray cluster, unchanged

Run ``python scripts/train_rllib.py --help`` for every option.
"""

import sys

from risk_env.tools.console import main

if __name__ == "__main__":
    main(sys.argv[1:], command="train-rllib", prog_name="python scripts/train_rllib.py")
