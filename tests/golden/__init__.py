"""Golden traces: seeded per-step text records of every registered env (see ``tracing.py``)."""
