"""Replay a game record: a move log, a GIF/MP4, a PNG strip of turn ends.

``risk-env replay`` under another name (its options, its help).

    python scripts/replay.py game.json --gif game.gif --strip turns.png
    python scripts/replay.py game.json --video game.mp4 --every move --upto 300

Run ``python scripts/replay.py --help`` for every option.
"""

import sys

from risk_env.tools.console import main

if __name__ == "__main__":
    main(sys.argv[1:], command="replay", prog_name="python scripts/replay.py")
