"""Replay a game record: print a move-by-move log, and draw it to a GIF/MP4 and a per-turn PNG strip.

    python scripts/replay.py game.json --gif game.gif --strip turns.png
    python scripts/replay.py game.json --video game.mp4 --every move --upto 300

The logic lives in :mod:`risk_env.records.replay` (also ``risk-env replay``).
"""

import sys

from risk_env.records.replay import main

if __name__ == "__main__":
    sys.exit(main())
