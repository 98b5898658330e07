"""Suite's packages import one way, along the pipeline, and without cycles.

The pipeline is configs -> sweep -> collect -> store -> stats -> report / dashboards: a sweep
expands configs into trials, their callbacks collect what RLlib trains on into store rows, and
the report and the W&B dashboards read the store back, with stats' estimators. Imports follow it
two ways:

- A stage imports the later stages it drives or hands data to: sweep runs trials whose collect
  callbacks it passes to Tune and writes run.json and the tables (sweep -> collect, store), and
  logs live to W&B (sweep -> dashboards); collect writes store rows (collect -> store).
- Every stage may read the libraries under it: configs (the tuned configs and the axes, which
  the store's columns and the report's cells are named by), stats (pure estimators on arrays;
  the store's trial summary takes an IQM) and the foundation modules below.

Nothing imports a stage before it: report and dashboards read the store, never sweep or collect,
so a report can be rebuilt from a results folder alone; sweep is imported by bench only. Where the
top-level modules sit (``ALLOWED``): ``humanize`` (number and duration text), ``argtypes``
(argparse types and exit codes) and ``rllib_buffer`` (RLlib 2.60's buffer behaviour: the drop
rule, the deadlock guard's constants, the simulator) are pure, import nothing of suite, and any
package may use them; ``learner`` (the suite's APPO learner, an RLlib plug-in a config
selects) sits under configs, which names it; ``ray_internals`` (Ray's private names) is for the
packages that talk to Ray (configs, collect, sweep), never report, store, stats or dashboards;
``faults`` injects faults into trials (tests), beside collect. ``bench`` measures everything and
may import anything.
One module crosses to the end of the pipeline on purpose (``ENDS_THE_PIPELINE``): the sweep
command builds its run's report when the run ends.

Inside sweep, its folders name its kinds (``SWEEP_PARTS``): ``planning`` (nothing started: the
trials, their requests, estimates and order), ``driver`` (the command, Ray and Tune, the run
folder and record), ``trial`` (what a trial's own process runs), ``sinks`` (the live Tune
callbacks), and ``race`` and ``search``, two ways a budget runs, from a schedule the spec and
the plan read to a Tune searcher the driver runs; beside them the two vocabularies, ``spec``
(what a sweep is) and ``options`` (what a command asks of it). The kinds that must hold are
bound in ``SWEEP_KINDS``: planning never reaches for the driver, a trial or the sinks; a trial's
process and the sinks load only the spec; the vocabularies no machinery. The driver uses every
part, and race and search run across the kinds, so neither is bound.

Inside report, its folders name its kinds the same way (``REPORT_PARTS``): ``analysis``
(functions from the store's tables to typed results: cell statistics, verdicts, budgets, the
buffer model, reliability, race and search analysis, advice) and ``presentation`` (figures, the
page's sections as template contexts, formatting, the glossary, the templates); beside them the
vocabulary both use, ``cell`` (a cell, a setting and their labels), and the commands at the top
(``__main__``, ``build``, ``compare``, ``promotion``, ``promote_search``, ``export``).
``REPORT_KINDS`` binds them: analysis never imports presentation or a command, presentation never
a command, the vocabulary nothing of report; and analysis imports no matplotlib or jinja2
(``NOT_IN_ANALYSIS``), so what a report decides can be computed, and tested, without drawing it.

Every ``import`` in ``suite/`` counts, deferred ones inside functions too (a deferred import is
still a dependency; it only hides the cycle from Python).
Run: ``pytest tests/test_import_graph.py``.
"""

from __future__ import annotations

import ast
import functools
import itertools
from collections import defaultdict
from pathlib import Path

SUITE = Path(__file__).resolve().parents[1] / "suite"

FOUNDATION = {"humanize", "argtypes", "rllib_buffer"}
LIBRARIES = {"configs", "stats", *FOUNDATION}
# unit -> the units it may import (the direction of the pipeline, in the module docstring).
ALLOWED: dict[str, set[str]] = {
    "bench": {
        "sweep",
        "collect",
        "store",
        "report",
        "dashboards",
        "learner",
        "ray_internals",
        *LIBRARIES,
    },
    "sweep": {"collect", "store", "dashboards", "ray_internals", *LIBRARIES},
    "collect": {"store", "ray_internals", *LIBRARIES},
    "faults": {"ray_internals", *FOUNDATION},
    "report": {"store", *LIBRARIES},
    "whatif": {"sweep", "report", "store", *LIBRARIES},
    "dashboards": {"store", *LIBRARIES},
    "store": LIBRARIES,
    "configs": {"learner", "ray_internals", *FOUNDATION},
    "learner": {"ray_internals", *FOUNDATION},
    "stats": FOUNDATION,
    "ray_internals": set(),
    **{module: set() for module in FOUNDATION},
}
# file -> units it may import beyond its package's: the sweep command ends by building the run's
# report (and its W&B summary), the one place the pipeline is run to its end.
ENDS_THE_PIPELINE: dict[str, set[str]] = {"suite/sweep/driver/session.py": {"report"}}

# sweep's parts: its sub-packages, and the top-level modules that are no kind's (the entry point
# and the two vocabularies every kind reads). A new module joins one of them.
SWEEP_PARTS = {
    "planning",
    "driver",
    "trial",
    "sinks",
    "race",
    "search",
    "spec",
    "options",
    "__main__",
}
# part of sweep -> the other parts of sweep it may import (the module docstring says why).
SWEEP_KINDS: dict[str, set[str]] = {
    "planning": {"spec", "options", "race", "search"},
    "trial": {"spec"},
    "sinks": {"spec"},
    "spec": {"race", "search"},
    "options": set(),
}


# report's parts: its two sub-packages, the vocabulary they share and the commands at the top.
REPORT_PARTS = {
    "analysis",
    "presentation",
    "cell",
    "__main__",
    "build",
    "compare",
    "promotion",
    "promote_search",
    "export",
}
# part of report -> the other parts of report it may import (the module docstring says why).
REPORT_KINDS: dict[str, set[str]] = {
    "analysis": {"cell"},
    "presentation": {"analysis", "cell"},
    "cell": set(),
}
# what report's analysis never imports: drawing and templating are presentation's.
NOT_IN_ANALYSIS = {"matplotlib", "jinja2"}


def unit_of(module: str) -> str | None:
    """``suite.store.schema`` -> ``store``: the package (or top-level module) of suite it is in."""
    parts = module.split(".")
    return parts[1] if parts[0] == "suite" and len(parts) > 1 else None


def part_of(module: str, package: str) -> str | None:
    """``suite.sweep.planning.plan`` -> ``planning`` (``package`` "sweep"): the part of suite's
    ``package`` a module is in."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["suite", package] and len(parts) > 2 else None


def sweep_part_of(module: str) -> str | None:
    return part_of(module, "sweep")


def report_part_of(module: str) -> str | None:
    return part_of(module, "report")


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


def backward_imports(graph, allowed=ALLOWED, exceptions=ENDS_THE_PIPELINE) -> list[str]:
    """Each import ``graph`` holds that ``allowed`` does not, as "unit -> unit (files)"."""
    found = []
    for source, targets in sorted(graph.items()):
        for target, files in sorted(targets.items()):
            if target in allowed.get(source, set()):
                continue
            against = sorted(f for f in files if target not in exceptions.get(f, set()))
            if against:
                found.append(f"{source} -> {target} ({', '.join(against)})")
    return found


def kind_imports(root: Path = SUITE, package: str = "sweep", kinds=SWEEP_KINDS) -> list[str]:
    """Each import between ``package``'s parts that ``kinds`` does not allow:
    "part -> part (files)"."""
    graph = package_graph(root, functools.partial(part_of, package=package))
    return [
        f"{source} -> {target} ({', '.join(sorted(files))})"
        for source in sorted(set(graph) & set(kinds))
        for target, files in sorted(graph[source].items())
        if target not in kinds[source]
    ]


def units(root: Path = SUITE) -> set[str]:
    return {unit_of(module_name(path, root)) for path in root.rglob("*.py")} - {None}


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


def test_suite_packages_import_along_the_pipeline_only():
    backward = backward_imports(package_graph())
    assert not backward, "imports against the pipeline (tests/test_import_graph.py):\n" + (
        "\n".join(backward)
    )


def test_every_unit_of_suite_has_its_place_in_the_direction():
    assert units() - set(ALLOWED) == set(), "add the new package or module to ALLOWED"
    assert find_cycle(ALLOWED) is None, "ALLOWED must be a direction, not a cycle"
    assert all(targets <= set(ALLOWED) for targets in ALLOWED.values())


def test_sweep_is_grouped_into_its_kinds():
    parts = {sweep_part_of(module_name(path, SUITE)) for path in (SUITE / "sweep").rglob("*.py")}
    assert parts - {None} == SWEEP_PARTS, "put the new module of suite/sweep/ in its kind's folder"
    assert set(SWEEP_KINDS) <= SWEEP_PARTS
    assert all(targets <= SWEEP_PARTS for targets in SWEEP_KINDS.values())


def test_sweep_kinds_import_only_the_parts_they_may():
    against = kind_imports(SUITE, "sweep", SWEEP_KINDS)
    assert not against, "imports between sweep's kinds (tests/test_import_graph.py):\n" + (
        "\n".join(against)
    )


def test_the_kinds_check_finds_planning_that_reaches_for_the_driver(tmp_path):
    root = tmp_path / "suite"
    for part in ("planning", "driver"):
        (root / "sweep" / part).mkdir(parents=True)
        (root / "sweep" / part / "__init__.py").write_text("")
    (root / "sweep" / "planning" / "plan.py").write_text(
        "from suite.sweep.spec import Sweep\n"
        "def later():\n    from suite.sweep.driver.cluster import connect\n"
    )
    (root / "sweep" / "driver" / "runner.py").write_text("import suite.sweep.planning.plan\n")
    assert kind_imports(root, "sweep", SWEEP_KINDS) == [
        "planning -> driver (suite/sweep/planning/plan.py)"
    ]


def analysis_imports_of(root: Path = SUITE, never=NOT_IN_ANALYSIS) -> list[str]:
    """Each file of report's analysis that imports a library ``never`` names: "file: library"."""
    return [
        f"{path.relative_to(root.parent)}: {library}"
        for path in sorted((root / "report" / "analysis").rglob("*.py"))
        for library in sorted({name.partition(".")[0] for name in imported_modules(path)} & never)
    ]


def test_report_is_grouped_into_its_kinds():
    parts = {report_part_of(module_name(path, SUITE)) for path in (SUITE / "report").rglob("*.py")}
    assert parts - {None} == REPORT_PARTS, (
        "put the new module of suite/report/ in analysis/ or presentation/ (or name the new "
        "command in REPORT_PARTS)"
    )
    assert set(REPORT_KINDS) <= REPORT_PARTS
    assert all(targets <= REPORT_PARTS for targets in REPORT_KINDS.values())


def test_report_kinds_import_only_the_parts_they_may():
    against = kind_imports(SUITE, "report", REPORT_KINDS)
    assert not against, "imports between report's kinds (tests/test_import_graph.py):\n" + (
        "\n".join(against)
    )


def test_report_analysis_draws_and_templates_nothing():
    found = analysis_imports_of()
    assert not found, "report's analysis imports presentation's libraries:\n" + "\n".join(found)


def test_the_kinds_check_finds_analysis_that_reaches_for_presentation(tmp_path):
    root = tmp_path / "suite"
    for part in ("analysis", "presentation"):
        (root / "report" / part).mkdir(parents=True)
        (root / "report" / part / "__init__.py").write_text("")
    (root / "report" / "cell.py").write_text("")
    (root / "report" / "analysis" / "verdicts.py").write_text(
        "from suite.report.cell import Cell\n"
        "def later():\n    from suite.report.presentation.formatting import fmt\n"
    )
    (root / "report" / "analysis" / "race.py").write_text("from matplotlib.figure import Figure\n")
    (root / "report" / "presentation" / "page.py").write_text(
        "import suite.report.analysis.verdicts\nfrom suite.report import cell\n"
    )
    assert kind_imports(root, "report", REPORT_KINDS) == [
        "analysis -> presentation (suite/report/analysis/verdicts.py)"
    ]
    assert analysis_imports_of(root) == ["suite/report/analysis/race.py: matplotlib"]


def toy_suite(tmp_path: Path, bodies: dict[str, str]) -> Path:
    """A suite/ tree with one ``module.py`` per package, holding its body."""
    root = tmp_path / "suite"
    for package, body in bodies.items():
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
        (root / package / "module.py").write_text(body)
    return root


def test_the_direction_check_finds_a_backward_import(tmp_path):
    root = toy_suite(
        tmp_path,
        {
            "store": "def later():\n    from suite.report.analysis.budget import read_at_budget\n",
            "report": "from suite.stats.metrics import mean\n",
            "sweep": "import suite.report.build\n",
        },
    )
    (root / "sweep" / "session.py").write_text("import suite.report.build\n")
    assert find_cycle(package_graph(root)) is None  # no cycle, and yet two arrows run backwards
    assert backward_imports(
        package_graph(root), exceptions={"suite/sweep/session.py": {"report"}}
    ) == [
        "store -> report (suite/store/module.py)",
        "sweep -> report (suite/sweep/module.py)",
    ]


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
    root = toy_suite(
        tmp_path,
        {
            "store": "from suite.configs.axes import AXES\n",
            "configs": "def later():\n    from suite.sweep import spec\n",
            "sweep": "import suite.store.schema\n",
        },
    )
    cycle = find_cycle(package_graph(root))
    assert cycle == ["configs", "sweep", "store", "configs"]
    assert "suite/configs/module.py" in describe(cycle, package_graph(root))
