"""Pure rules cores, one package per game."""
