"""Play one seeded random game of Iris through the PettingZoo AEC loop and print it.

    python examples/random_game.py --seed 0 --board-size 5 [--show-boards]

Every turn is one line (a turn is one or two stones, a pass or a forfeit); the final board is
drawn with the ``ansi`` render, then the winner and each player's group scores. A bad option is
one line ``random_game.py: error: ...`` naming it, before the game.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from tabletop_envs import iris_v0
from tabletop_envs.core.config import Config, parse_command, setting
from tabletop_envs.games.iris.rules import MAX_SIDE, MIN_SIDE

NAMES = {"player_0": "Black", "player_1": "White"}


def play(seed: int, board_size: int, show_boards: bool = False) -> dict:
    """Play one random game, printing it; return the readable result (``result_details()``)."""
    env = iris_v0.env(board_size=board_size, render_mode="ansi")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    print(f"Iris, board side {board_size}, seed {seed}: random legal moves for both players\n")
    turn, mover, moves = 0, None, []
    final_rewards = {}

    def end_turn() -> None:
        print(f"{turn:4d}. {NAMES[mover]}: {' '.join(moves)}")
        if show_boards:
            print(env.render(), end="\n\n")

    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:  # game over: collect, then remove the agent
            final_rewards[agent] = reward
            env.step(None)
            continue
        if agent != mover:
            if moves:
                end_turn()
            turn, mover, moves = turn + 1, agent, []
        legal = np.flatnonzero(observation["action_mask"])
        action = int(rng.choice(legal))
        moves.append(env.game.action_to_string(action))
        env.step(action)
    end_turn()
    if not show_boards:
        print("\nFinal board (X Black, O White, letters: empty colored cells, '.': empty gray):")
        print(env.render())
    result = env.result_details()  # the readable result: lists, and the winner's seat or None
    black, white = result["group_scores"]
    winner = result["winner"]
    print(f"\nWinner: {'none (draw)' if winner is None else NAMES[env.possible_agents[winner]]}")
    print(f"Group scores (colored cells per group, highest first): Black {black}, White {white}")
    rewards = {agent: final_rewards[agent] for agent in env.possible_agents}
    print(f"Rewards: {rewards}")
    env.close()
    return result


@dataclass
class RandomGameConfig(Config):
    """The command line of this script, declared once: its options come from these fields."""

    seed: int = setting(0, low=0, help="seed of the game")
    board_size: int = setting(5, low=MIN_SIDE, high=MAX_SIDE, help="hexagon side")
    show_boards: bool = setting(False, help="print the board after every turn")


def main(argv: list[str] | None = None) -> int:
    """Parse the command line (a bad option stops here, before the game) and play one game."""
    config, _ = parse_command(
        RandomGameConfig, argv, prog="random_game.py", description=__doc__.split("\n")[0]
    )
    play(config.seed, config.board_size, config.show_boards)
    return 0


if __name__ == "__main__":
    sys.exit(main())
