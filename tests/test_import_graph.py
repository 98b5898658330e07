"""No import cycles between suite's packages, nor between its modules: the pipeline reads one way.

Every ``import`` in ``suite/`` counts, deferred ones inside functions too (a deferred import is
still a dependency; it only hides the cycle from Python).
Run: ``pytest tests/test_import_graph.py``.
"""

from __future__ import annotations

import ast
import itertools
from collections import defaultdict
from pathlib import Path

SUITE = Path(__file__).resolve().parents[1] / "suite"


def unit_of(module: str) -> str | None:
    """``suite.store.schema`` -> ``store``: the package (or top-level module) of suite it is in."""
    parts = module.split(".")
    return parts[1] if parts[0] == "suite" and len(parts) > 1 else None


def imported_modules(path: Path, modules: set[str] | None = None) -> list[str]:
    """What ``path`` imports. Given suite's ``modules``, ``from package import module`` counts
    the module only (the package's ``__init__`` is not what the file uses)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            submodules = [name for name in names if modules is None or name in modules]
            found += submodules + ([node.module] if len(submodules) < len(names) else [])
        elif isinstance(node, ast.ImportFrom):
            raise AssertionError(f"{path}: relative import; the graph reads absolute ones only")
    return found


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(("suite", *(parts[:-1] if parts[-1] == "__init__" else parts)))


def package_graph(root: Path = SUITE, unit=unit_of, modules=None) -> dict[str, dict[str, set[str]]]:
    """unit -> imported unit -> the files that import it."""
    graph: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted(root.rglob("*.py")):
        source = unit(module_name(path, root))
        for target in {unit(name) for name in imported_modules(path, modules)} - {None, source}:
            graph[source][target].add(str(path.relative_to(root.parent)))
    return graph


def module_graph(root: Path = SUITE) -> dict[str, dict[str, set[str]]]:
    """The same graph between suite's modules (``from m import name`` counts m only)."""
    modules = {module_name(path, root) for path in root.rglob("*.py")}
    return package_graph(root, lambda name: name if name in modules else None, modules)


def find_cycle(graph: dict[str, dict[str, set[str]]]) -> list[str] | None:
    """One cycle as [a, b, ..., a], or None."""
    state: dict[str, str] = {}  # unit -> "open" while on the path, "done" after

    def visit(unit: str, path: list[str]) -> list[str] | None:
        state[unit] = "open"
        for target in sorted(graph.get(unit, {})):
            if state.get(target) == "open":
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target, [*path, target])):
                return found
        state[unit] = "done"
        return None

    for unit in sorted(graph):
        if unit not in state and (found := visit(unit, [unit])):
            return found
    return None


def describe(cycle: list[str], graph) -> str:
    edges = [f"{a} -> {b} ({', '.join(sorted(graph[a][b]))})" for a, b in itertools.pairwise(cycle)]
    return "import cycle between suite's packages: " + "; ".join(edges)


def test_no_import_cycle_between_suite_packages():
    graph = package_graph()
    assert {"configs", "sweep", "collect", "store", "report"} <= set(graph) | {
        target for targets in graph.values() for target in targets
    }
    cycle = find_cycle(graph)
    assert cycle is None, describe(cycle, graph)


def test_no_import_cycle_between_suite_modules():
    graph = module_graph()
    assert "suite.configs.registry" in graph
    cycle = find_cycle(graph)
    assert cycle is None, describe(cycle, graph).replace("packages", "modules")


def test_the_module_check_finds_a_cycle_inside_one_package(tmp_path):
    root = tmp_path / "suite"
    (root / "configs").mkdir(parents=True)
    (root / "configs" / "__init__.py").write_text("")
    (root / "configs" / "registry.py").write_text(
        "def build():\n    from suite.configs.resolve import resolve\n"
    )
    (root / "configs" / "resolve.py").write_text("from suite.configs.registry import get_config\n")
    assert package_graph(root) == {}  # one package: no cycle between packages
    cycle = find_cycle(module_graph(root))
    assert cycle == ["suite.configs.registry", "suite.configs.resolve", "suite.configs.registry"]


def test_the_check_finds_a_cycle_made_by_a_deferred_import(tmp_path):
    root = tmp_path / "suite"
    for package, body in {
        "store": "from suite.configs.axes import AXES\n",
        "configs": "def later():\n    from suite.sweep import spec\n",
        "sweep": "import suite.store.schema\n",
    }.items():
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
        (root / package / "module.py").write_text(body)
    cycle = find_cycle(package_graph(root))
    assert cycle == ["configs", "sweep", "store", "configs"]
    assert "suite/configs/module.py" in describe(cycle, package_graph(root))
