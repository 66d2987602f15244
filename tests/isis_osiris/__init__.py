"""Tests of Isis & Osiris (rules, scoring, hidden information, observation, env)."""
