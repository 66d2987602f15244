"""Check an installed tabletop_envs (a wheel in a clean venv without extras).

Imports every public module found by walking the package, and checks that
``import tabletop_envs`` loads none of the optional heavy dependencies. Run from outside the
repository so that the installed package, not ``src/``, is imported.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from importlib import metadata

HEAVY = ("torch", "stable_baselines3", "sb3_contrib", "matplotlib", "pygame")
# Modules allowed to need an extra at import time (the train extra: torch and SB3, imported at
# the top of the CNN policies); every other module must import with the base dependencies only.
NEEDS_EXTRA = {"tabletop_envs.training.cnn": "train"}


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
    for needed in ("tabletop_envs/py.typed", "tabletop_envs-{}.dist-info/licenses/LICENSE"):
        if needed.format(tabletop_envs.__version__) not in files:
            failures.append(f"the wheel lacks {needed.format(tabletop_envs.__version__)}")
    names = [m.name for m in pkgutil.walk_packages(tabletop_envs.__path__, "tabletop_envs.")]
    imported = 0
    for name in names:
        try:
            importlib.import_module(name)
            imported += 1
        except ModuleNotFoundError as err:
            if name in NEEDS_EXTRA and (err.name or "").split(".")[0] in HEAVY:
                print(f"  {name} needs the {NEEDS_EXTRA[name]} extra ({err.name} missing)")
            else:
                failures.append(f"{name}: {type(err).__name__}: {err}")
        except Exception as err:  # report every module, then fail
            failures.append(f"{name}: {type(err).__name__}: {err}")
    print(f"imported {imported} of {len(names)} modules")
    for line in failures:
        print(f"FAILED: {line}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
