"""Digest of Irk's observable behaviour, to compare two versions of the code (issue 22).

Run it once per tree and compare the printed hashes (they must be equal)::

    PYTHONPATH=/path/to/old/src python benchmarks/irk_digest.py 60
    PYTHONPATH=/path/to/new/src python benchmarks/irk_digest.py 60

For each parameter set of ``SETS`` it plays the given number of seeded random games on the core
(sometimes continuing on a clone, sometimes playing the left-behind original on: the
copy-on-write paths) and hashes, at every position: the phase, mover and acting seats, every
seat's observation and ``legal_mask_of``, the mask, ``legal_actions()``, returns, result,
public outcome and JSON; at about half of them also the pickle, text renders, score, occupied
cells, result arrays, a clone, ``resample_hidden`` of every seat (JSON, observations, legal
actions, the copy's Generator state, one move played on it) and the caller's RNG state after,
the error type and message of illegal and malformed actions (the state left unchanged), and the
legal placements of every tile in a place phase. Then it plays games through ``irk_v0.env()``
hashing every ``last()`` (observation, mask, reward, flags, infos) and the end of each game, and
one game ended by a penalized illegal action.
"""

import hashlib
import pickle
import random
import sys

import numpy as np

import tabletop_envs
from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.games.irk.results import result_arrays
from tabletop_envs.games.irk.rules import IrkParams, IrkState

SETS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4, reward="score"),
    dict(num_players=2, table_size=9),
    dict(num_players=3, table_size=7, group_planes=True),
    dict(num_players=2, table_size=9, action_values=True),
    dict(num_players=2, table_size=6, group_planes=True, action_values=True),
    dict(num_players=2, table_size=5),
]
N = int(sys.argv[1]) if len(sys.argv) > 1 else 40  # games per parameter set
total = hashlib.sha256()


def feed(h, *xs):
    for x in xs:
        if isinstance(x, np.ndarray):
            h.update(repr((x.dtype.str, x.shape)).encode())
            h.update(x.tobytes())
        else:
            h.update(repr(x).encode())
        h.update(b"|")


def look(h, g, rng, deep):
    n = g.params.num_players
    feed(h, g.current_player, g.is_terminal, g.phase, g.round, g.box, g.acting_seats())
    for s in range(n):
        feed(h, g.observation(s), g.legal_mask_of(s))
    feed(h, g.legal_mask(), g.legal_actions(), g.returns(), g.result_info(), g.public_outcome())
    feed(h, g.to_json())
    if deep:
        feed(h, pickle.dumps(g), g.render_text(), g.render_text(0), g.score(), g.occupied_cells())
        feed(h, g.visible_grid(), {k: v for k, v in result_arrays(g).items()})
        c = g.clone()
        feed(h, c.to_json(), c.observation(0), c.legal_mask())
        if not g.is_terminal:
            for s in range(n):
                r = g.resample_hidden(s, rng)
                feed(
                    h, r.to_json(), r.observation(s), r.observation((s + 1) % n), r.legal_actions()
                )
                feed(h, r.rng.bit_generator.state, r.seed, r.actions)
                if not r.is_terminal:
                    la = r.legal_actions()
                    r.apply(la[len(la) // 2])
                    feed(h, r.to_json(), r.observation(s))
            feed(h, rng.bit_generator.state)
        # illegal actions
        if not g.is_terminal:
            legal = set(g.legal_actions())
            for a in (
                0,
                g.deck_size - 1,
                g.deck_size,
                g.deck_size + 5,
                g.spec.num_actions - 1,
                g.spec.num_actions,
                -1,
                3.5,
                "x",
            ):
                if a in legal:
                    continue
                before = g.to_json()
                try:
                    g.clone().apply(a)
                    feed(h, "ok?", a)
                except (IllegalActionError, ValueError, TypeError) as e:
                    feed(h, type(e).__name__, str(e))
                feed(h, g.to_json() == before)
        if g.phase == 1:  # place: placements of every tile
            for t in range(g.deck_size):
                feed(h, g.placements_of(t))


for params in SETS:
    h = hashlib.sha256()
    p = IrkParams(**params)
    for k in range(N):
        g = IrkState(p, 1000 + k)
        rnd = random.Random(k)
        rng = np.random.default_rng(k)
        clones = []
        while True:
            look(h, g, rng, deep=(rnd.random() < 0.5))
            if g.is_terminal:
                break
            la = g.legal_actions()
            a = la[rnd.randrange(len(la))]
            if rnd.random() < 0.2:  # play on a clone and continue with it (copy-on-write paths)
                old = g
                g = g.clone()
                clones.append(old)
            g.apply(a)
            if clones and rnd.random() < 0.3:  # play the old one too
                o = clones[-1]
                if not o.is_terminal:
                    la2 = o.legal_actions()
                    o.apply(la2[0])
                    look(h, o, rng, deep=False)
        # reload from json / pickle and check the end
        feed(h, IrkState.from_json(g.to_json()).to_json(), pickle.loads(pickle.dumps(g)).to_json())
    # env loop
    env = tabletop_envs.make("irk_v0", **params)
    env.reset(seed=7)
    r = random.Random(3)
    for _game in range(max(2, N // 10)):
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            feed(h, agent, obs["observation"], obs["action_mask"], rew, term, trunc, sorted(info))
            for key in sorted(info):
                feed(h, key, info[key])
            if term or trunc:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[r.randrange(len(legal))])
            env.step(action)
        feed(
            h,
            env.rewards,
            env._cumulative_rewards,
            env.result_details(),
            {a: sorted(i) for a, i in env.infos.items()},
        )
        for a, i in env.infos.items():
            for key in sorted(i):
                feed(h, a, key, i[key])
        env.reset()
    # penalized illegal action
    env.reset(seed=9)
    env.step(env.game.spec.num_actions - 1 if env.game.phase == 0 else 0)
    feed(h, env.rewards, env._cumulative_rewards, env.result_details(), env.terminations)
    for a, i in env.infos.items():
        for key in sorted(i):
            feed(h, a, key, i[key])
    d = h.hexdigest()
    total.update(d.encode())
    print(params, d[:16], flush=True)
print("TOTAL", total.hexdigest()[:16])
