"""Iris rule tests: text-board scenarios, an independent reference, random playouts."""
