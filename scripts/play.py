"""Agents against each other, without boards: full games, one summary line per game.

python scripts/play.py --players 4 --games 3 --seed 0
python scripts/play.py --players 2 --games 5 --rules fast --agents balanced,random

No seat here is yours: to play against agents yourself, run 'risk-env play'; to watch
agents' games as boards (and draw them), run 'risk-env watch'.
"""

from __future__ import annotations

import argparse
import sys
import time

import risk_env
from risk_env.agents import load_agent
from risk_env.tools.match import play_match


def main(argv: list[str] | None = None) -> int:
    """Play the games; returns the exit status (2 after a one-line ``error:`` for bad input)."""
    ap = argparse.ArgumentParser(
        prog="scripts/play.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--players", type=int, default=4, help="2..6 (default 4)")
    ap.add_argument("--games", type=int, default=3, help="number of games, 1 or more (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first game, 0 or more; game g uses seed+g (default 0)")
    ap.add_argument("--rules", default="classic", help=f"rules preset: {', '.join(risk_env.PRESETS)}")
    ap.add_argument("--turn-limit", type=int, default=None)
    ap.add_argument("--agents", default="random", help="one agent name for every seat, or one per seat, comma-separated")
    args = ap.parse_args(argv)
    try:
        if args.games < 1:
            raise risk_env.RiskError(f"--games must be 1 or more, got {args.games}")
        if args.seed < 0:
            raise risk_env.RiskError(f"--seed must be 0 or more, got {args.seed}")
        overrides = {} if args.turn_limit is None else {"turn_limit": args.turn_limit}
        env = risk_env.env(num_players=args.players, preset=args.rules, **overrides)
        names = [x.strip() for x in args.agents.split(",")]
        names = names * args.players if len(names) == 1 else names
        if len(names) != args.players:
            raise risk_env.RiskError(
                f"--agents: give one agent name for every seat or exactly {args.players} (one per seat), got {len(names)}"
            )
        agents = [load_agent(name, seed=args.seed * 1000 + i) for i, name in enumerate(names)]
    except risk_env.RiskError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    total_steps, t0 = 0, time.perf_counter()
    for g in range(args.games):
        r = play_match(env, agents, seed=args.seed + g, views=None)
        total_steps += r.steps
        outcome = f"winner player_{r.winner}" if r.winner >= 0 else "truncated at the turn limit"
        elim = ", ".join(f"player_{p}" for p in r.elimination_order) or "none"
        print(f"game {g} (seed {r.seed}): {outcome}; turns {r.turns}; steps {r.steps}; eliminated: {elim}")
    dt = time.perf_counter() - t0
    print(f"{args.games} games, {total_steps} steps in {dt:.1f} s ({total_steps / dt:,.0f} steps/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
