"""PettingZoo's own conformance tests on a registered env, and the Parallel view's agreement
with the AEC env.

Which of ``pettingzoo.test`` apply:

* ``api_test`` on ``env()`` (illegal actions penalized) and on ``raw_env()`` (they raise),
  ``seed_test``, ``render_test`` (human, ansi; rgb_array and svg when the env has a picture;
  on the AEC env and the Parallel view),
  ``parallel_api_test`` and ``parallel_seed_test`` on the Parallel view: run here.
* ``max_cycles_test``: no — the envs have no ``max_cycles`` (games end by their rules, within
  ``spec.max_game_length``, checked in the playouts).
* ``state_test``: no — ``state()`` is deliberately not offered (hidden information, egocentric
  views); the spaces check checks that it says so.
* ``bombardment_test``: no — it repeats ``api_test``'s observation checks over many resets; the
  seeded random playouts check more, every agent every step.
* ``manual_control_test``, ``performance_benchmark``, ``test_save_obs``: not conformance
  (keyboard play, a speed print, image files).
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from tabletop_envs.envs.registry import env_spec
from tabletop_envs.testing.play import Case, assert_same_obs, info_key, random_trajectory

#: Warnings ``api_test`` gives for any env with Dict observations (the PettingZoo classic
#: layout ``{"observation", "action_mask"}``) and for the all-zeros mask at the end of a game.
EXPECTED_API_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
    "Action mask numpy array is all zeros",
)
#: Steps PettingZoo's tests may play (more than any game here lasts: each plays one game).
NUM_CYCLES = 1000


@contextlib.contextmanager
def _quiet(expected: tuple[str, ...] | None, what: str) -> Iterator[None]:
    """Silence PettingZoo's prints; with ``expected``, fail on any warning but those."""
    with contextlib.redirect_stdout(io.StringIO()):
        if expected is None:
            yield
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    unexpected = sorted({str(w.message) for w in caught if not str(w.message).startswith(expected)})
    assert not unexpected, f"{what} warned: {unexpected}"


def check_api_test(case: Case, illegal_action: str = "penalize") -> None:
    """PettingZoo's ``api_test`` on ``env()`` (``penalize``) or ``raw_env()`` (``raise``)."""
    from pettingzoo.test import api_test

    with _quiet(EXPECTED_API_WARNINGS, f"api_test ({illegal_action})"):
        api_test(case.make(illegal_action=illegal_action), num_cycles=NUM_CYCLES)


def check_seed_test(case: Case) -> None:
    """PettingZoo's ``seed_test``: two envs reset with the same seed play identically."""
    from pettingzoo.test import seed_test

    with _quiet(None, "seed_test"):
        seed_test(case.make, num_cycles=NUM_CYCLES)


def check_box_api_test(case: Case) -> None:
    """PettingZoo's ``api_test`` on ``obs_type="box"``: the plain Box observation, the mask in
    the infos (PettingZoo's test plays by it)."""
    from pettingzoo.test import api_test

    with _quiet(EXPECTED_API_WARNINGS, "api_test (obs_type='box')"):
        api_test(case.make(obs_type="box"), num_cycles=NUM_CYCLES)


def check_pettingzoo(case: Case) -> None:
    """``api_test`` on ``env()`` and ``raw_env()`` (and with ``obs_type="box"``), and
    ``seed_test``."""
    check_api_test(case, "penalize")
    check_api_test(case, "raise")
    check_box_api_test(case)
    check_seed_test(case)


def _nonempty_image(image: np.ndarray) -> bool:
    return image.shape[0] > 1 and image.shape[1] > 1 and int(image.max()) > int(image.min())


def check_render(case: Case) -> None:
    """``render_test`` over the render modes: human (the ansi text printed, None returned),
    ansi text, and the rgb_array image and svg text of the env's picture when it declares one
    (``EnvSpec.image``); the Parallel view renders the same way."""
    from pettingzoo.test import render_test

    def text_ok(text: Any) -> bool:
        return isinstance(text, str) and text.strip() != ""

    check_human_render(case)
    if env_spec(case.name).image is None:
        env = case.make(render_mode="ansi")
        env.reset(seed=case.seed)
        assert text_ok(env.render()), "render() in ansi mode gave no text"
        return
    from pettingzoo.utils.conversions import parallel_to_aec

    def parallel_fn(render_mode: str | None = None) -> Any:
        # render_test plays through the AEC API: PettingZoo's own wrapper of the Parallel view
        return parallel_to_aec(case.make_parallel(render_mode=render_mode))

    env_fns: tuple[Any, ...] = (case.make, parallel_fn)
    for env_fn in env_fns:
        modes = env_fn(render_mode="human").metadata["render_modes"]
        assert set(modes) == {"human", "ansi", "rgb_array", "svg"}, modes
        with _quiet(None, "render_test"):
            render_test(
                env_fn,
                custom_tests={
                    "ansi": text_ok,
                    "rgb_array": _nonempty_image,
                    "svg": lambda text: isinstance(text, str) and text.startswith("<svg "),
                },
            )


def check_human_render(case: Case) -> None:
    """``render_mode="human"`` prints the ansi text (and a newline) and returns None."""
    ansi = case.make(render_mode="ansi")
    human = case.make(render_mode="human")
    ansi.reset(seed=case.seed)
    human.reset(seed=case.seed)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = human.render()
    assert result is None, f"render() in human mode returned {type(result).__name__}"
    assert out.getvalue() == f"{ansi.render()}\n", "human mode did not print the ansi text"


# ---- the Parallel view ---------------------------------------------------------------------
def check_parallel_api(case: Case, illegal_action: str = "penalize") -> None:
    """``parallel_api_test`` (it samples every live agent's action with its mask)."""
    from pettingzoo.test import parallel_api_test

    with _quiet(EXPECTED_API_WARNINGS[:2], "parallel_api_test"):
        parallel_api_test(case.make_parallel(illegal_action=illegal_action), NUM_CYCLES)


def check_parallel_seed(case: Case) -> None:
    """PettingZoo's ``parallel_seed_test`` (unmasked samples: the first illegal one ends it)."""
    from pettingzoo.test import parallel_seed_test

    with _quiet(EXPECTED_API_WARNINGS[:2], "parallel_seed_test"):
        parallel_seed_test(case.make_parallel)


def _masked_play(env: Any, seed: int, junk: bool = False) -> list[tuple[Any, ...]]:
    """Play one game with seeded random legal actions; return every step's outputs.

    With ``junk``, agents that do not act send an out-of-range action (it must be ignored).
    """
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    trace: list[tuple[Any, ...]] = [(obs, infos)]
    while env.agents:
        played = {}
        for agent in env.agents:
            legal = np.flatnonzero(obs[agent]["action_mask"])
            if len(legal):
                played[agent] = int(legal[rng.integers(len(legal))])
        junk_entries = {a: -7 for a in env.agents if a not in played} if junk else {}
        obs, rewards, terms, truncs, infos = env.step({**played, **junk_entries})
        trace.append((played, obs, rewards, terms, truncs, infos))
    return trace


def _same_value(p: Any, q: Any) -> bool:
    if isinstance(p, np.ndarray):  # a Box observation
        return p.dtype == q.dtype and np.array_equal(p, q)
    if isinstance(p, dict) and p and isinstance(next(iter(p.values())), np.ndarray):
        return p.keys() == q.keys() and all(np.array_equal(p[k], q[k]) for k in p)
    if isinstance(p, dict) and p and isinstance(next(iter(p.values())), dict):  # infos
        return p.keys() == q.keys() and all(info_key(p[k]) == info_key(q[k]) for k in p)
    return bool(p == q)


def _same_trace(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> bool:
    """Return whether two traces of :func:`_masked_play` are identical."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            if u.keys() != v.keys() or not all(_same_value(u[k], v[k]) for k in u):
                return False
    return True


def check_parallel_replay(case: Case) -> None:
    """The same seed and legal actions replay the same game, whatever non-movers send."""
    seed = case.seed + 5
    first = _masked_play(case.make_parallel(), seed=seed)
    assert _same_trace(first, _masked_play(case.make_parallel(), seed=seed)), "same seed"
    assert _same_trace(first, _masked_play(case.make_parallel(), seed=seed, junk=True)), (
        "an action sent by an agent that does not act changed the game"
    )
    assert not _same_trace(first, _masked_play(case.make_parallel(), seed=seed + 1)), (
        "two seeds of the random policy played the same game"
    )
    *_, (_, _, rewards, terms, truncs, infos) = first
    assert all(terms.values()) and not any(truncs.values()), "the game did not end"
    assert not any(info["illegal_action"] for info in infos.values()), infos
    assert set(rewards) == set(case.make().possible_agents), rewards


def check_acting_seats(case: Case) -> None:
    """The mover acts first; its ``legal_mask_of`` is ``legal_mask``; non-acting seats get zeros."""
    for step, game in enumerate(random_trajectory(case, case.seed + 3)):
        acting = game.acting_seats()
        if game.is_terminal:
            assert acting == (), f"step {step}: seats act after the end"
        else:
            assert acting[0] == game.current_player and len(set(acting)) == len(acting), step
            assert np.array_equal(game.legal_mask_of(game.current_player), game.legal_mask()), (
                f"step {step}: the mover's legal_mask_of is not its legal_mask"
            )
        for seat in range(game.num_players):
            if seat not in acting:
                assert not game.legal_mask_of(seat).any(), f"step {step}: seat {seat} acts"


def _acting(obs: dict[str, dict[str, np.ndarray]]) -> list[str]:
    return [agent for agent, o in obs.items() if o["action_mask"].any()]


def check_parallel_matches_aec(case: Case, seed: int) -> None:
    """Same seed, same actions: same observations, masks, rewards and outcome as AEC.

    Before each Parallel step every agent's observation equals its AEC observation at the start
    of the step; each acting agent's mask equals its AEC mask when its turn comes (the acting
    agents play in the order ``agent_selection`` takes them); the others' masks are zeros.
    """
    par, aec = case.make_parallel(), case.make()
    rng = np.random.default_rng(seed)
    obs, _ = par.reset(seed=seed)
    aec.reset(seed=seed)
    while par.agents:
        for agent in par.agents:
            assert np.array_equal(obs[agent]["observation"], aec.observe(agent)["observation"])
        acting = _acting(obs)
        assert acting, "a live game has no acting agent"
        actions = {}
        for _ in acting:
            agent = aec.agent_selection
            assert agent in acting, f"AEC moves {agent}, the Parallel step lets {acting} act"
            assert np.array_equal(obs[agent]["action_mask"], aec.observe(agent)["action_mask"])
            legal = np.flatnonzero(obs[agent]["action_mask"])
            actions[agent] = int(legal[rng.integers(len(legal))])
            aec.step(actions[agent])
        assert sorted(actions) == sorted(acting)
        obs, rewards, terms, _, infos = par.step(actions)
        assert rewards == aec.rewards and terms == aec.terminations
        for agent, info in infos.items():  # the same but the masks (the views' own, above)
            assert info["action_mask"] is obs[agent]["action_mask"], f"{agent}: two masks"
            skip = ("action_mask",)
            assert info_key(info, skip) == info_key(aec.infos[agent], skip), f"{agent} infos"
    assert all(aec.terminations.values()), "the AEC game did not end with the Parallel one"
    for agent in aec.possible_agents:
        assert_same_obs(obs[agent], aec.observe(agent), f"final view of {agent}")


def check_parallel(case: Case) -> None:
    """The Parallel view: PettingZoo's parallel tests, seeded replays, acting seats, and the
    same games as the AEC env."""
    check_parallel_api(case, "penalize")
    check_parallel_api(case, "raise")
    check_parallel_seed(case)
    check_parallel_replay(case)
    check_acting_seats(case)
    for seed in case.seeds:
        check_parallel_matches_aec(case, seed)
