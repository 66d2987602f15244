"""Seat order: seats are numbered 0..n-1 and play in increasing order, wrapping around."""

from __future__ import annotations


def next_seat(seat: int, num_players: int) -> int:
    """Return the seat after ``seat``."""
    return (seat + 1) % num_players


def relative_seats(viewer: int, num_players: int) -> tuple[int, ...]:
    """Return all seats in order starting with ``viewer`` (the egocentric order)."""
    return tuple((viewer + k) % num_players for k in range(num_players))
