"""Tree search on the core contract, below the players (:mod:`tabletop_envs.agents`).

- :mod:`~tabletop_envs.search.node`: the one node type both searches build their trees of;
- :mod:`~tabletop_envs.search.puct`: PUCT (AlphaZero), batched over roots and
  determinizations, guided by an :class:`~tabletop_envs.search.evaluator.Evaluator`;
- :mod:`~tabletop_envs.search.uct`: UCT with determinization (information-set MCTS);
- :mod:`~tabletop_envs.search.playouts`: random, greedy and planner playouts, used by both;
- :mod:`~tabletop_envs.search.evaluator`: the evaluator interface, the network input and the
  uniform evaluator (a search without its network);
- :mod:`~tabletop_envs.search.values`: what a search backs up: value targets, their scale, the
  spread of a network value to every seat;
- :mod:`~tabletop_envs.search.network`: the policy-value network's file format and numpy
  forward pass;
- :mod:`~tabletop_envs.search.network_file`: the file's meta, its checks and its reader, which
  refuses a bad file with :class:`~tabletop_envs.search.network_file.NetworkFileError`;
- :mod:`~tabletop_envs.search.network_layout`: the architectures a file declares (MLP, or a
  conv trunk over the board planes) and the arrays each holds;
- :mod:`~tabletop_envs.search.conv`: the conv trunk's numpy forward pass.

This package imports the core, the games' registry and numpy only (never the agents, the
training layer or torch).
"""

from tabletop_envs.search.evaluator import Evaluator, encode, encode_batch
from tabletop_envs.search.network import NetworkFileError, PolicyValueNet
from tabletop_envs.search.node import Node
from tabletop_envs.search.playouts import PLAYOUTS
from tabletop_envs.search.puct import puct_search, run_puct
from tabletop_envs.search.uct import uct_search

__all__ = [
    "PLAYOUTS",
    "Evaluator",
    "NetworkFileError",
    "Node",
    "PolicyValueNet",
    "encode",
    "encode_batch",
    "puct_search",
    "run_puct",
    "uct_search",
]
