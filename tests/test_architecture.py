"""The house rules, checked on the source: layers run one way, no import cycles, small rooms.

Layers, lowest first: ``core`` (with ``render``, drawing helpers) -> ``games`` -> ``envs`` ->
``agents`` / ``search`` / ``testing`` -> ``evaluation`` (with ``watch``, ``replay`` and ``web``)
-> ``training`` -> ``cli``. A module never imports a higher layer, not even inside a function or
under ``TYPE_CHECKING``; ``search`` does not import ``agents`` (players sit on the search).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "tabletop_envs"

LAYERS = {
    "core": 0,
    "render": 0,
    "games": 1,
    "envs": 2,
    "iris_v0": 2,
    "isis_osiris_v0": 2,
    "irk_v0": 2,
    "": 2,  # tabletop_envs/__init__.py: the registry and the errors
    "agents": 3,
    "search": 3,
    "testing": 3,
    "evaluation": 4,
    "watch": 4,
    "replay": 4,
    "web": 4,  # the web app: over the envs, agents, watch and replay; never training
    "training": 5,
    "cli": 6,
    "__main__": 6,
}
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
MAX_ADD_ARGUMENT = 30


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, tuple[Path, ast.Module]]:
    """Every module of the package: name -> (path, syntax tree)."""
    out = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        out[_module_name(path)] = (path, ast.parse(path.read_text(), str(path)))
    return out


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST, runtime_only: bool) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, anywhere; without ``if TYPE_CHECKING:`` blocks if asked."""
    found: list[ast.Import | ast.ImportFrom] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            if not (runtime_only and _is_type_checking(child)):
                todo.append(child)
    return found


@cache
def imports(runtime_only: bool = False) -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere (in functions too).

    ``runtime_only`` leaves out imports under ``if TYPE_CHECKING:`` (never executed): they
    count for the layers, not for cycles.
    """
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, (path, tree) in known.items():
        deps: set[str] = set()
        for node in _import_nodes(tree, runtime_only):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = _resolve(name, path.name == "__init__.py", node)
                # "from pkg import submodule" imports the submodule
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
                ]
            deps.update(t for t in targets if t.split(".")[0] == PACKAGE and t != name)
        graph[name] = deps
    return graph


def layer(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    if top not in LAYERS:
        raise AssertionError(f"{module}: no layer declared for {top!r} in tests/test_architecture")
    return LAYERS[top]


def test_every_module_has_a_layer():
    for name in modules():
        layer(name)


def test_no_module_imports_a_higher_layer():
    bad = []
    for name, deps in imports().items():
        for dep in deps:
            if layer(dep) > layer(name):
                bad.append(f"{name} (layer {layer(name)}) imports {dep} (layer {layer(dep)})")
            if name.startswith(f"{PACKAGE}.search") and dep.startswith(f"{PACKAGE}.agents"):
                bad.append(f"{name} imports {dep}: search sits below the players")
    assert not bad, "\n".join(sorted(bad))


#: Heavy optional stacks only the training layer (and above) may import.
TRAINING_ONLY = ("torch", "stable_baselines3", "sb3_contrib")


def test_torch_and_sb3_only_in_training():
    """The library below training runs on numpy alone (the experts play without torch)."""
    bad = []
    for name, (_path, tree) in modules().items():
        if layer(name) >= LAYERS["training"]:
            continue
        for node in _import_nodes(tree, runtime_only=False):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                targets = [node.module or ""]
            bad += [f"{name} imports {t}" for t in targets if t.split(".")[0] in TRAINING_ONLY]
    assert not bad, "\n".join(bad)


def test_no_import_cycles():
    graph = imports(runtime_only=True)
    cycles = []
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                cycles.append(" -> ".join([*stack[stack.index(dep) :], dep]))
            elif dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "\n".join(cycles)


def test_rooms_are_small():
    big = []
    for name, (path, tree) in modules().items():
        lines = len(path.read_text().splitlines())
        if lines > MAX_FILE_LINES:
            big.append(f"{name}: {lines} lines (at most {MAX_FILE_LINES})")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    big.append(f"{name}.{node.name}: {length} lines (at most {MAX_FUNCTION_LINES})")
    assert not big, "\n".join(big)


def test_command_lines_come_from_declared_configs():
    calls = []
    for name, (_path, tree) in modules().items():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"
            ):
                calls.append(f"{name}:{node.lineno}")
    assert len(calls) <= MAX_ADD_ARGUMENT, f"{len(calls)} add_argument calls:\n" + "\n".join(calls)


@pytest.mark.parametrize("low", ["core", "games", "envs", "agents", "search", "evaluation", "web"])
def test_lower_layers_never_name_training_or_cli(low: str):
    """Not even by a "module:function" string (the agent plugins come from entry points)."""
    named = []
    for name, (path, _tree) in modules().items():
        if name.split(".")[1:2] == [low]:
            text = path.read_text()
            for word in ("tabletop_envs.training", "tabletop_envs.cli"):
                if f'"{word}' in text or f"'{word}" in text:
                    named.append(f"{name} names {word}")
    assert not named, "\n".join(named)
