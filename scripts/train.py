"""Train an agent from a YAML config (the on-device PPO trainer or MaskablePPO).

``risk-env train`` under another name (its options, its help).

    python scripts/train.py                                 # configs/train/default.yaml: the on-device recipe, 10 min
    python scripts/train.py --config sb3                    # the MaskablePPO recipe (warm start + kickstarting)
    python scripts/train.py --config 4p                     # a shipped config by name, or a path
    python scripts/train.py --config long --set env.n_envs=32
    python scripts/train.py --resume runs/default           # continue from the newest checkpoint

Run ``python scripts/train.py --help`` for every option.
"""

import sys

from risk_env.tools.console import main

if __name__ == "__main__":
    main(sys.argv[1:], command="train", prog_name="python scripts/train.py")
