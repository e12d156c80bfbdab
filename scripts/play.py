"""Play full games between agents and print a summary per game.

python scripts/play.py --players 4 --games 3 --seed 0
python scripts/play.py --players 2 --games 5 --rules fast
"""

from __future__ import annotations

import argparse
import time

import risk_env
from risk_env.agents import RandomAgent


def play_game(env, agents: dict, seed: int) -> dict:
    env.reset(seed=seed)
    steps = 0
    returns = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(agents[agent].act(obs, info))
        steps += 1
    s = env.unwrapped.game_state
    return {
        "seed": seed,
        "winner": f"player_{s.winner}" if s.winner >= 0 else None,
        "truncated": s.truncated,
        "turns": s.turn,
        "steps": steps,
        "eliminations": [f"player_{p}" for p in s.elim_order],
        "returns": returns,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=4, help="2..6 (default 4)")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", default="classic", help=f"rules preset: {', '.join(risk_env.PRESETS)}")
    ap.add_argument("--turn-limit", type=int, default=None)
    args = ap.parse_args(argv)
    overrides = {} if args.turn_limit is None else {"turn_limit": args.turn_limit}
    env = risk_env.env(num_players=args.players, preset=args.rules, **overrides)
    agents = {a: RandomAgent(seed=args.seed * 1000 + i) for i, a in enumerate(env.possible_agents)}
    total_steps, t0 = 0, time.perf_counter()
    for g in range(args.games):
        r = play_game(env, agents, args.seed + g)
        total_steps += r["steps"]
        outcome = f"winner {r['winner']}" if r["winner"] else "truncated at the turn limit"
        elim = ", ".join(r["eliminations"]) or "none"
        print(f"game {g} (seed {r['seed']}): {outcome}; turns {r['turns']}; steps {r['steps']}; eliminated: {elim}")
    dt = time.perf_counter() - t0
    print(f"{args.games} games, {total_steps} steps in {dt:.1f} s ({total_steps / dt:,.0f} steps/s)")


if __name__ == "__main__":
    main()
