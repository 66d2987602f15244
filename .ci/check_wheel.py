"""Check an installed tabletop_envs (a wheel in a clean venv without extras).

Imports every public module found by walking the package, checks that ``import tabletop_envs``
loads none of the optional heavy dependencies, and plays a game with the packaged expert of
every env, with its network and with ``expert:network=off`` (numpy only, no torch), at every
player count a packaged network was made for. Run from
outside the repository so that the installed package, not ``src/``, is imported.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import subprocess
import sys
from importlib import metadata

HEAVY = ("torch", "stable_baselines3", "sb3_contrib", "matplotlib", "pygame")
# Modules allowed to need an extra at import time, with the packages it brings (the train extra:
# torch and SB3, imported at the top of the CNN policies and of the AZ conv trunk's torch twin;
# the web extra: Starlette, imported by the web app); every other module must import with the
# base dependencies only.
NEEDS_EXTRA = {
    "tabletop_envs.training.cnn": ("train", HEAVY),
    "tabletop_envs.training.az.torch_conv": ("train", HEAVY),
    "tabletop_envs.web.app": ("web", ("starlette", "uvicorn", "anyio")),
}


def main() -> int:
    """Import every module and check the light import; return 0 or 1."""
    probe = "import sys, tabletop_envs; print(' '.join(m for m in {!r} if m in sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe.format(HEAVY)], capture_output=True, text=True, check=True
    ).stdout.split()
    failures = [f"import tabletop_envs loaded {', '.join(loaded)}"] if loaded else []

    import tabletop_envs

    print(f"tabletop_envs {tabletop_envs.__version__} from {tabletop_envs.__file__}")
    if "site-packages" not in tabletop_envs.__file__:
        failures.append("tabletop_envs was not imported from an installed wheel")
    meta = metadata.metadata("tabletop_envs")
    if meta["Version"] != tabletop_envs.__version__:
        failures.append(f"metadata version {meta['Version']} != {tabletop_envs.__version__}")
    if meta["License-Expression"] != "MIT":
        failures.append(f"License-Expression is {meta['License-Expression']!r}, not 'MIT'")
    files = {str(f) for f in metadata.files("tabletop_envs") or ()}
    for needed in (
        "tabletop_envs/py.typed",
        "tabletop_envs-{}.dist-info/licenses/LICENSE",
        "tabletop_envs/web/static/index.html",  # the web app's page, package data
        "tabletop_envs/web/static/main.js",
    ):
        if needed.format(tabletop_envs.__version__) not in files:
            failures.append(f"the wheel lacks {needed.format(tabletop_envs.__version__)}")
    names = [m.name for m in pkgutil.walk_packages(tabletop_envs.__path__, "tabletop_envs.")]
    imported = 0
    for name in names:
        try:
            importlib.import_module(name)
            imported += 1
        except ModuleNotFoundError as err:
            extra, packages = NEEDS_EXTRA.get(name, ("", ()))
            if (err.name or "").split(".")[0] in packages:
                print(f"  {name} needs the {extra} extra ({err.name} missing)")
            else:
                failures.append(f"{name}: {type(err).__name__}: {err}")
        except Exception as err:  # report every module, then fail
            failures.append(f"{name}: {type(err).__name__}: {err}")
    print(f"imported {imported} of {len(names)} modules")
    failures += check_experts()
    for line in failures:
        print(f"FAILED: {line}", file=sys.stderr)
    return 1 if failures else 0


def check_experts() -> list[str]:
    """Play one game per env with the packaged expert, and with ``network=off``, against
    random; return the failures."""
    import time

    from tabletop_envs import registered_envs
    from tabletop_envs.agents import make_agent
    from tabletop_envs.evaluation.arena import run_arena

    failures = []
    if importlib.util.find_spec("torch") is not None:
        failures.append("torch is installed here: the experts must be checked without it")
    for env in registered_envs():
        for spec in ("expert", "expert:network=off"):  # the search with and without its net
            try:
                expert = make_agent(spec, env, seed=0)
                # every packaged network: an ExpertAgent holds one per parameter set
                for net in [a.net for a in getattr(expert, "agents", [expert])]:
                    params = net.meta["params"]
                    n = params.get("num_players", 2)
                    kwargs = {"num_players": n} if "num_players" in params else {}
                    start = time.perf_counter()
                    players = [expert, *["random"] * (n - 1)]
                    result = run_arena(env, players, games=1, seed=0, env_kwargs=kwargs)
                    seconds = time.perf_counter() - start
                    stats = result.stats[0]
                    print(
                        f"  {spec} {env} ({n} players): one game against random in "
                        f"{seconds:.1f} s ({stats.wins}W {stats.draws}D {stats.losses}L)"
                    )
            except Exception as err:
                failures.append(f"{spec} {env}: {type(err).__name__}: {err}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
