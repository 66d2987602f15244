"""The conformance suite: every registered env, every parameter set of its ``test_params``."""
