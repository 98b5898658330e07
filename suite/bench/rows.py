"""The benchmark rows, each one object looked up by name, as sweeps are.

A row is measured by ``python -m suite.bench --rows <key>`` into its raw record,
``benchmarks/raw/<key>.json`` (the only home of its numbers), and rendered from that record and
its notes file (``benchmarks/notes/<notes>.md``, the only home of its hand-written prose) into a
section of benchmarks/RESULTS.md. Measuring imports RLlib and trains; rendering does neither.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from suite.bench import results_md
from suite.bench.notes import Notes, load_header, load_notes

RAW_DIR = "raw"  # under the bench directory (benchmarks/): one record per row
NOTES_DIR = "notes"


class UnknownRowError(ValueError):
    """A row name that is not known; the message lists the known ones."""


@dataclass(frozen=True, kw_only=True)
class MeasureOptions:
    quick: bool = False  # tiny budgets, development only; the row says so
    address: str | None = None  # a Ray cluster for the gpu row
    peers_long: bool = False  # the peers row also runs its long envs


@dataclass(frozen=True, kw_only=True)
class Row:
    key: str  # --rows name and raw record name
    title: str  # the RESULTS.md section heading
    measure: Callable[[MeasureOptions], dict]  # runs the benchmark: the record's data
    render: Callable[[dict, Notes], list[str]]  # the record's data (and notes) as Markdown lines
    notes: str | None = None  # benchmarks/notes/<notes>.md, the row's hand-written prose


def _with_ray(num_cpus: int, measure, *args):
    """Run ``measure`` inside a fresh local Ray of ``num_cpus`` (declared) CPUs."""
    import ray

    # address="local": a new instance even if some other Ray cluster runs on this machine.
    ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        return measure(*args)
    finally:
        ray.shutdown()


# How each row is measured. The imports are deferred: rendering must not import RLlib.


def _overhead(options: MeasureOptions) -> dict:
    from suite.bench import suite_overhead

    return _with_ray(2, suite_overhead.measure, *((1, 15.0) if options.quick else (4, 20.0)))


def _race(options: MeasureOptions) -> dict:
    from suite.bench import time_to_return

    return _with_ray(time_to_return.DECLARED_CPUS, time_to_return.measure, options.quick)


def _atari(options: MeasureOptions) -> dict:
    from suite.bench import atari_sampling

    args = (1, 30.0, 5.0) if options.quick else (2, 60.0, 15.0)
    return _with_ray(atari_sampling.declared_cpus(), atari_sampling.measure, *args)


def _packing(budget: str) -> Callable[[MeasureOptions], dict]:
    def measure(options: MeasureOptions) -> dict:
        from suite.bench import packing

        return packing.measure(budget)

    return measure


def _report(options: MeasureOptions) -> dict:
    from suite.bench import report_scale

    sizes = ((250, 1_000),) if options.quick else report_scale.SIZES
    seconds = report_scale.time_report_builds(sizes)
    largest = seconds[max(seconds)]
    return {
        "seconds": {f"{t:,} x {i:,}": s for (t, i), s in seconds.items()},
        "target": report_scale.TARGET_S,
        "met": None if options.quick else largest < report_scale.TARGET_S,
    }


def _gpu(options: MeasureOptions) -> dict:
    from suite.bench import gpu_scaling

    return gpu_scaling.measure(options.address)


def _throughput(options: MeasureOptions) -> dict:
    from suite.bench import throughput

    return _with_ray(2, throughput.measure, 15.0 if options.quick else 30.0)


def _guard(options: MeasureOptions) -> dict:
    from suite.bench import guard_overhead

    return _with_ray(2, guard_overhead.measure, *((1, 15.0) if options.quick else (4, 20.0)))


def _racing(options: MeasureOptions) -> dict:
    from suite.bench import racing  # sweeps in their own processes, each with its own Ray

    return racing.measure(options.quick)


def _search_cost(options: MeasureOptions) -> dict:
    from suite.bench import search_cost  # sweeps in their own processes, each with its own Ray

    return search_cost.measure(options.quick)


def _peers(options: MeasureOptions) -> dict:
    from suite.bench import peers  # SB3 and sweeps in their own processes

    return peers.measure(options.quick, include_long=options.peers_long)


def _learner_cost(options: MeasureOptions) -> dict:
    from suite.bench import learner_cost  # no Ray: the learners update in this process

    return learner_cost.measure(repetitions=1 if options.quick else 7)


def _render_learner_cost(data: dict, notes: Notes) -> list[str]:
    from suite.bench import learner_cost

    return [*learner_cost.render(data), "", *notes.lines("reading")]


def _measure_walk(walk_name: str, options: MeasureOptions) -> dict:
    """Measure the walk ``ppo_walk.<walk_name>`` (its sweeps and rl-zoo3 run in their own
    processes); a row takes it as ``partial(_measure_walk, walk_name)``."""
    from suite.bench import ppo_walk

    return ppo_walk.measure(options.quick, getattr(ppo_walk, walk_name))


def _render_ppo_walk(data: dict, notes: Notes) -> list[str]:
    from suite.bench import ppo_walk

    return [*ppo_walk.render(data), "", *notes.lines("reading")]


def _impact(options: MeasureOptions) -> dict:
    from suite.bench import impact  # sweeps in their own processes

    return impact.measure(options.quick)


def _render_impact(data: dict, notes: Notes) -> list[str]:
    from suite.bench import impact

    return [*impact.render(data), "", *notes.lines("reading")]


def _whatif(options: MeasureOptions) -> dict:
    from suite.bench import whatif_error  # reads the committed stores: no Ray, no training

    return whatif_error.measure()


def _render_whatif(data: dict, notes: Notes) -> list[str]:
    from suite.bench import whatif_error

    return whatif_error.render(data)


def _faults(options: MeasureOptions) -> dict:
    from suite.bench import fault_drills  # sweeps in their own processes, a cluster of its own

    return fault_drills.measure(options.quick)


def _render_faults(data: dict, notes: Notes) -> list[str]:
    from suite.bench import fault_drills

    return fault_drills.render(data)


def _render_search_cost(data: dict, notes: Notes) -> list[str]:
    from suite.bench import search_cost

    return search_cost.render(data)


def _peers_minatar(options: MeasureOptions) -> dict:
    from suite.bench import peers

    return peers.measure(options.quick, peer_envs=peers.MINATAR_PEER_ENVS)


def _peers_minatar_space_invaders(options: MeasureOptions) -> dict:
    from suite.bench import peers

    return peers.measure(options.quick, peer_envs=peers.MINATAR_SPACE_INVADERS_PEER_ENVS)


def _setup(options: MeasureOptions) -> dict:
    from suite.bench import setup_time  # sweeps in their own processes, each with its own Ray

    return setup_time.measure(options.quick)


def _render_setup(data: dict, notes: Notes) -> list[str]:
    from suite.bench import setup_time

    return [*setup_time.render(data), "", *notes.lines("reading")]


def _render_peers(data: dict, notes: Notes) -> list[str]:
    from suite.bench import peers

    return peers.render(data)


ROWS: tuple[Row, ...] = (
    Row(
        key="overhead",
        title="1. Overhead of the suite (instrumentation, store, progress view)",
        measure=_overhead,
        render=results_md.render_overhead,
    ),
    Row(
        key="race",
        title="2. Tuned CartPole config vs RLlib's cartpole_appo.py: time to return 450",
        measure=_race,
        render=results_md.render_race,
        notes="race",
    ),
    Row(
        key="atari",
        title="3. Atari sampling efficiency (Pong)",
        measure=_atari,
        render=results_md.render_atari,
        notes="atari",
    ),
    Row(
        key="packing_smoke",
        title="4a. Sweep packing, cartpole_nk --budget smoke",
        measure=_packing("smoke"),
        render=results_md.render_packing,
        notes="packing",
    ),
    Row(
        key="packing_laptop",
        title="4b. Sweep packing, cartpole_nk --budget laptop",
        measure=_packing("laptop"),
        render=results_md.render_packing,
        notes="packing",
    ),
    Row(
        key="report",
        title="5. Report build time, 1,000 trials x 1,000 iterations",
        measure=_report,
        render=results_md.render_report,
    ),
    Row(
        key="gpu",
        title="6. GPU learner scaling (learner_scaling)",
        measure=_gpu,
        render=results_md.render_gpu,
    ),
    Row(
        key="throughput",
        title="7. Throughput of other configs (for sweep time estimates)",
        measure=_throughput,
        render=results_md.render_throughput,
    ),
    Row(
        key="guard",
        title="8. Cost of the deadlock guard (guard on vs off, a config that cannot drop)",
        measure=_guard,
        render=results_md.render_guard,
    ),
    Row(
        key="racing",
        title="9. Racing vs the full grid (continuous_nk --budget laptop, Pendulum)",
        measure=_racing,
        render=results_md.render_racing,
        notes="racing",
    ),
    Row(
        key="search_cost",
        title="10. A search's trials: training share of their CPU-seconds, and what each choice "
        "buys",
        measure=_search_cost,
        render=_render_search_cost,
    ),
    Row(
        key="peers",
        title="11. The tuned configs against their peers (SB3 PPO with rl-zoo3's settings, "
        "RLlib's tuned examples)",
        measure=_peers,
        render=_render_peers,
        notes="peers",
    ),
    Row(
        key="learner_cost",
        title="12. The learner's cost per minibatch step: RLlib's APPO learner, the suite's, SB3's "
        "PPO",
        measure=_learner_cost,
        render=_render_learner_cost,
        notes="learner_cost",
    ),
    Row(
        key="ppo_walk",
        title="13. From SB3's PPO to APPO in PPO's layout, one difference at a time (Pendulum)",
        measure=partial(_measure_walk, "PENDULUM"),
        render=_render_ppo_walk,
        notes="ppo_walk",
    ),
    Row(
        key="whatif",
        title="14. The what-if's buffer model against measured cells",
        measure=_whatif,
        render=_render_whatif,
    ),
    Row(
        key="faults",
        title="15. Faults survived: a frozen trial process, a lost worker node, a killed driver, "
        "a retry no node can host",
        measure=_faults,
        render=_render_faults,
    ),
    Row(
        key="impact",
        title="16. IMPACT's claim: reuse from the buffer against PPO's epochs, at equal env steps "
        "and equal wall time",
        measure=_impact,
        render=_render_impact,
        notes="impact",
    ),
    Row(
        key="peers_minatar",
        title="17. MinAtar, the Atari family at laptop scale: the suite's config against SB3 PPO",
        measure=_peers_minatar,
        render=_render_peers,
    ),
    Row(
        key="setup",
        title="18. Set-up: a Pendulum trial from process start to its first score",
        measure=_setup,
        render=_render_setup,
        notes="setup",
    ),
    Row(
        key="ppo_walk_cartpole",
        title="19. CartPole in PPO's layout: rl-zoo3's linear lr and clip schedules, on and off, "
        "SB3 and APPO",
        measure=partial(_measure_walk, "CARTPOLE"),
        render=_render_ppo_walk,
        notes="ppo_walk_cartpole",
    ),
    Row(
        key="peers_minatar_space_invaders",
        title="20. MinAtar Space Invaders: the suite's tuned config against SB3 PPO",
        measure=_peers_minatar_space_invaders,
        render=_render_peers,
    ),
    Row(
        key="ppo_walk_sampler",
        title="21. Pendulum in PPO's layout: how many envs per env runner",
        measure=partial(_measure_walk, "PENDULUM_SAMPLER"),
        render=_render_ppo_walk,
        notes="ppo_walk_sampler",
    ),
    Row(
        key="ppo_walk_cartpole_tuned",
        title="22. The tuned CartPole config: its search's choices taken back one at a time",
        measure=partial(_measure_walk, "CARTPOLE_TUNED"),
        render=_render_ppo_walk,
        notes="ppo_walk_cartpole_tuned",
    ),
    Row(
        key="ppo_walk_pendulum_early",
        title="23. Pendulum at 50k env steps: what SB3's PPO does that APPO in its layout does not",
        measure=partial(_measure_walk, "PENDULUM_EARLY"),
        render=_render_ppo_walk,
        notes="ppo_walk_pendulum_early",
    ),
    Row(
        key="ppo_walk_pendulum_tuned",
        title="24. The tuned Pendulum config with shuffled minibatches",
        measure=partial(_measure_walk, "PENDULUM_TUNED"),
        render=_render_ppo_walk,
        notes="ppo_walk_pendulum_tuned",
    ),
    Row(
        key="ppo_walk_cartpole_shuffled",
        title="25. The tuned CartPole config with shuffled minibatches",
        measure=partial(_measure_walk, "CARTPOLE_TUNED_SHUFFLED"),
        render=_render_ppo_walk,
        notes="ppo_walk_cartpole_shuffled",
    ),
    Row(
        key="ppo_walk_pendulum_init",
        title="26. Pendulum in PPO's layout, initialised as SB3's PPO",
        measure=partial(_measure_walk, "PENDULUM_INIT"),
        render=_render_ppo_walk,
        notes="ppo_walk_pendulum_init",
    ),
    Row(
        key="ppo_walk_cartpole_init",
        title="27. CartPole in PPO's layout, initialised as SB3's PPO",
        measure=partial(_measure_walk, "CARTPOLE_INIT"),
        render=_render_ppo_walk,
        notes="ppo_walk_cartpole_init",
    ),
    Row(
        key="ppo_walk_pendulum_in_process",
        title="28. The tuned Pendulum config sampling in the trial's own process",
        measure=partial(_measure_walk, "PENDULUM_IN_PROCESS"),
        render=_render_ppo_walk,
        notes="ppo_walk_pendulum_in_process",
    ),
    Row(
        key="ppo_walk_cartpole_in_process",
        title="29. The tuned CartPole config sampling in the trial's own process",
        measure=partial(_measure_walk, "CARTPOLE_IN_PROCESS"),
        render=_render_ppo_walk,
        notes="ppo_walk_cartpole_in_process",
    ),
    Row(
        key="ppo_walk_pendulum_configs",
        title="30. The library's two Pendulum configs side by side",
        measure=partial(_measure_walk, "PENDULUM_CONFIGS"),
        render=_render_ppo_walk,
        notes="ppo_walk_pendulum_configs",
    ),
)


def row_keys() -> list[str]:
    return [row.key for row in ROWS]


def get_row(key: str) -> Row:
    for row in ROWS:
        if row.key == key:
            return row
    close = difflib.get_close_matches(key, row_keys(), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise UnknownRowError(f"unknown row {key!r}.{hint} Known: {', '.join(row_keys())}")


def render_section(row: Row, record: dict, notes_dir: Path) -> str:
    """A row's section body: when and where it was measured, its data, its run's note."""
    notes = load_notes(row.notes, notes_dir)
    stamp = f"_Measured {record['measured_at']} on {record['machine']}"
    stamp += " (--quick: development numbers, not the benchmark)._" if record["quick"] else "._"
    lines = [stamp, "", *row.render(record["data"], notes)]
    run_note = notes.for_run(record["measured_at"])
    return "\n".join([*lines, *(["", run_note] if run_note else [])]) + "\n"


def render(bench_dir: Path) -> str:
    """RESULTS.md: the raw records (``bench_dir/raw``) and the notes (``bench_dir/notes``)
    rendered, nothing else; a row without a record is "Not measured yet."."""
    raw_dir, notes_dir = bench_dir / RAW_DIR, bench_dir / NOTES_DIR
    parts = [load_header(notes_dir)]
    for row in ROWS:
        parts.append(f"## {row.title}\n")
        path = raw_dir / f"{row.key}.json"
        if not path.exists():
            parts.append("Not measured yet.\n")
            continue
        parts.append(render_section(row, json.loads(path.read_text()), notes_dir))
    return "\n".join(parts)
