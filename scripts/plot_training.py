"""Plot training curves: win rates over learner decisions and wall time.

``risk-env plot-training`` under another name (its options, its help).

    python scripts/plot_training.py runs/sb3 runs/2p -o docs/training_curves.png
    python scripts/plot_training.py runs/default runs/2p -o curves.png   # several runs in one figure

Run ``python scripts/plot_training.py --help`` for every option.
"""

import sys

from risk_env.tools.console import main

if __name__ == "__main__":
    main(sys.argv[1:], command="plot-training", prog_name="python scripts/plot_training.py")
