"""PettingZoo side: one generic AEC adapter and the registry of envs."""
