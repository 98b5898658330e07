"""How each benchmark row reads in benchmarks/RESULTS.md: its raw record's data (and its notes
file's hand-written parts) to Markdown lines. The rows themselves are ``suite.bench.rows``."""

from __future__ import annotations

import math

from suite.bench.notes import Notes
from suite.bench.summary import Spread


def _verdict(met: bool | None) -> str:
    return "not measured" if met is None else ("**met**" if met else "**missed**")


def _s(data: dict, digits: int = 0) -> str:
    return Spread(**data).describe(digits)


def render_overhead(data: dict, notes: Notes) -> list[str]:
    return [
        f"Config `{data['config']}`, {data['seconds_per_run']:.0f} s of training per run, "
        "A (bare Tune script) and B (suite sweep trial) interleaved "
        f"({data.get('order', 'ABAB')}).",
        "",
        "| | env steps/s |",
        "|---|---|",
        f'| bare `tune.Tuner("APPO")` | {_s(data["bare"])} |',
        f"| suite trial | {_s(data['suite'])} |",
        "",
        f"Ratio suite/bare (medians): **{data['ratio']:.3f}**; target >= {data['target']}: "
        f"{_verdict(data['met'])}.{_noise_note(data['bare'], data['suite'])}",
    ]


def render_guard(data: dict, notes: Notes) -> list[str]:
    return [
        f"Config `{data['config']}`, {data['seconds_per_run']:.0f} s of training per run, "
        f"guard on and off interleaved ({data['order']}); both with the suite's buffer accounting.",
        "",
        "| deadlock guard | env steps/s |",
        "|---|---|",
        f"| on | {_s(data['on'])} |",
        f"| off (RLlib's own wait) | {_s(data['off'])} |",
        "",
        f"Ratio on/off (medians): **{data['ratio']:.3f}**; target >= {data['target']}: "
        f"{_verdict(data['met'])}.{_noise_note(data['off'], data['on'])}",
    ]


def _noise_note(a: dict, b: dict) -> str:
    if a["min"] <= b["max"] and b["min"] <= a["max"]:
        return (
            " The two ranges overlap: the difference is within run-to-run noise of this "
            "shared machine, so this row shows no measurable overhead rather than a speed-up."
        )
    return ""


def render_race(data: dict, notes: Notes) -> list[str]:
    budget = data["budget"]
    lines = [
        f"{budget['seeds']} seeds per config, interleaved; fixed budget of "
        f"{budget['env_steps']:,} env steps or {_seconds_budget(budget)} per trial (never "
        "stopped on reward); time = wall seconds from the start of the Tuner, set-up included, "
        f"to the first smoothed mean return >= 450. Ray declared {data['declared_cpus']} CPUs "
        "(RLlib's settings need 4).",
        "",
        "| config | seconds to 450 | env steps to 450 | reached | env steps/s |",
        "|---|---|---|---|---|",
    ]
    for name, row in data["configs"].items():
        reached = f"{row['reached']}/{row['seeds']}"
        lines.append(
            f"| `{name}` | {_s(row['seconds'])} | {_s(row['env_steps'])} | {reached} | "
            f"{_s(row['env_steps_per_s'])} |"
        )
    bound = "at most " if data["rllib_censored"] else ""
    steps = data["steps_ratio"]
    lines += [
        "",
        f"Wall-time ratio suite/RLlib (medians): **{bound}{data['time_ratio']:.2f}**; "
        f"env-steps ratio: {'n/a' if math.isnan(steps) else f'{steps:.2f}'}; target <= "
        f"{data['target']}: {_race_verdict(data)}.",
    ]
    return [*lines, "", *notes.lines("tuning_probes"), "", *notes.lines("earlier_run")]


def _seconds_budget(budget: dict) -> str:
    suite, rllib = budget["seconds"], budget.get("rllib_seconds", budget["seconds"])
    if suite == rllib:
        return f"{suite:.0f} s"
    return f"{suite:.0f} s (`cartpole`) / {rllib:.0f} s (`cartpole_rllib`)"


def _race_verdict(data: dict) -> str:
    if data["rllib_censored"] and not data["met"]:
        return (
            "**not decided**: RLlib's settings never reached 450 within the budget, so the "
            "true ratio is below this bound but may or may not be below the target; a longer "
            "budget would decide it"
        )
    return _verdict(data["met"])


def render_atari(data: dict, notes: Notes) -> list[str]:
    raw = data["raw_ale"]
    return [
        f"Raw ALE (`AtariEnv`, RLlib's wrapper stack, random actions, {data['raw_seconds']:.0f} "
        f"s): {raw['1']:.0f} env steps/s in 1 process, {raw['2']:.0f} in 2 processes (total).",
        "",
        *_render_env_runner(data["env_runner"], notes),
        "",
        *_render_configs(data),
        "",
        *_render_profiles(data["profiles"]),
        "",
        *notes.lines("probes"),
    ]


def _render_env_runner(runner: dict, notes: Notes) -> list[str]:
    rates, ratio = runner["per_cpu_second"], runner["ratio"]
    rows = [
        f"| {label} | " + " | ".join(_s(rates[sampler][mode]) for mode in RUNNER_MODES) + " |"
        for sampler, label in (
            ("ale_vector", "ale_py C++ vector env (`pong`)"),
            ("rllib_wrappers", "RLlib wrapper stack (`pong_rllib`)"),
        )
    ]
    met = ratio["policy"] >= runner["target"]
    return [
        "**One env runner, env steps per CPU-second.** An RLlib `SingleAgentEnvRunner` of 8 envs "
        "with the suite's CNN and connectors, 1 torch thread and 1 ALE thread (what an env runner "
        "reserving 1 CPU gets), in a fresh process; "
        f"{runner['seconds_per_run']:.0f} s per column, samplers alternating; CPU-seconds are the "
        "process's own, every thread included. Columns: its vector env alone (random actions); "
        "the env runner sampling with random actions (RLlib's connectors and episodes added); "
        "sampling with the policy (the CNN forward pass added).",
        "",
        "| sampler | vector env alone | env runner, random actions | env runner, policy |",
        "|---|---|---|---|",
        *rows,
        "",
        f"Ratio native/wrappers (medians): **{ratio['policy']:.2f}** for the env runner with the "
        f"policy, {ratio['random_actions']:.2f} with random actions, {ratio['env_only']:.2f} for "
        f"the vector env alone; target >= {runner['target']} (the env runner with the policy): "
        f"{_verdict(met)}." + ("" if met else " " + notes.part("runner_target")),
    ]


RUNNER_MODES = ("env_only", "random_actions", "policy")


def _render_configs(data: dict) -> list[str]:
    pong, rllib = data["configs"]["pong"], data["configs"]["pong_rllib"]
    return [
        f"**Suite `pong` vs RLlib's settings.** Each trial {data['seconds_per_run']:.0f} s of "
        f"training, configs interleaved, the suite's buffer accounting on; Ray declared "
        f"{data['declared_cpus']} CPUs (RLlib's settings ask for that many). Trained env steps "
        "are the suite's exact count (`buffer_env_steps_trained_lifetime`).",
        "",
        "| config | sampled env steps/s | trained env steps/s |",
        "|---|---|---|",
        f"| suite `pong` (native vector env) | {_s(pong['sampled'])} | {_s(pong['trained'])} |",
        f"| RLlib `pong_appo.py` settings (`pong_rllib`, wrapper stack) | "
        f"{_s(rllib['sampled'])} | {_s(rllib['trained'])} |",
        "",
        f"Ratio suite/RLlib (medians): **{data['ratio']:.2f}** sampled, "
        f"{data['trained_ratio']:.2f} trained; target >= {data['target']} sampled: "
        f"{_config_verdict(data)}. Suite `pong` samples "
        f"{100 * data['fraction_of_raw_2_processes']:.0f}% of raw ALE stepping in 2 processes.",
    ]


def _config_verdict(data: dict) -> str:
    if data["met"] is None and data.get("outside_share", 0.0) > data.get("contention_limit", 1.0):
        return (
            f"**inconclusive**: other work used up to {100 * data['outside_share']:.0f}% of the "
            'cores during the `pong` trials ("rest of the machine" below; limit '
            f"{100 * data['contention_limit']:.0f}%), so these rates measure that load as much "
            "as the configs"
        )
    return _verdict(data["met"])


def _render_profiles(profiles: list[dict]) -> list[str]:
    if not profiles:
        return ["Where the cores go: not measured."]
    roles = list(profiles[0]["share_of_cores"])
    lines = [
        f"**Where the {profiles[0]['cores']} cores go in a `pong` trial** (each of its "
        f"{len(profiles)} trials above, from its third result to its last, "
        f"{min(p['wall_s'] for p in profiles):.0f}-{max(p['wall_s'] for p in profiles):.0f} s): "
        "CPU seconds per thread of the trial's processes from /proc (`suite.bench.cpu_profile`: "
        "the env runner's ALE threads, its Python thread, the algorithm's `_LearnerThread` and "
        "main thread), the machine's busy time from /proc/stat, idle = cores x wall - busy. "
        "Inference is RLlib's own inference timer times the forward passes, taken out of the env "
        "runner's Python thread.",
        "",
        "| where | share of all cores |",
        "|---|---|",
    ]
    for role in roles:
        shares = [100 * p["share_of_cores"][role] for p in profiles]
        lines.append(f"| {role} | {_percent_range(shares)} |")
    return lines


def _percent_range(shares: list[float]) -> str:
    low, high = min(shares), max(shares)
    return f"{low:.0f}%" if round(low) == round(high) else f"{low:.0f}-{high:.0f}%"


def render_packing(data: dict, notes: Notes) -> list[str]:
    idle = data["run_wall_s"] - data["trial_held_s"]
    return [
        f"`python -m suite.sweep {data['sweep']} --budget {data['budget']} --wandb off "
        "--no-report`; packing = trial CPU-seconds / cluster CPU-seconds, from run.json.",
        "",
        "| packing | trials | CPUs per trial | cluster CPUs | run wall s | trials held CPUs s |",
        "|---|---|---|---|---|---|",
        f"| **{data['packing']:.3f}** | {data['trials']} | {data['cpus_per_trial']} | "
        f"{data['cluster_cpus']:g} | {data['run_wall_s']:.0f} | {data['trial_held_s']:.0f} |",
        "",
        f"Target >= {data['target']}: {_verdict(data['met'])}. Trials run one at a time (each "
        f"reserves all {data['cluster_cpus']:g} CPUs), so the {idle:.0f} s in which no trial held "
        "CPUs are what limits packing: Tune starting the run, the hand-over from one trial to the "
        f"next, and the final consolidation, {idle / data['trials']:.1f} s per trial; a fixed "
        "cost per trial, it weighs less as trials get longer. " + notes.part("handover"),
    ]


def render_report(data: dict, notes: Notes) -> list[str]:
    lines = ["| trials x iterations | build seconds |", "|---|---|"]
    lines += [f"| {size} | {seconds:.2f} |" for size, seconds in data["seconds"].items()]
    target = f"Target < {data['target']} s at 1,000 x 1,000: {_verdict(data['met'])}."
    return [*lines, "", target]


def render_gpu(data: dict, notes: Notes) -> list[str]:
    if not data.get("measured"):
        return [data.get("text", "Not measured: no GPU cluster run exists yet.")]
    lines = [
        f"Cluster: {data['machine']}.",
        "",
        "| learners | GPUs per learner | env steps/s |",
        "|---|---|---|",
    ]
    lines += [
        f"| {row['num_learners']} | {row['num_gpus_per_learner']:g} | "
        f"{row['env_steps_per_s']:.0f} |"
        for row in data["rows"]
    ]
    return lines


def render_throughput(data: dict, notes: Notes) -> list[str]:
    lines = [f"One bare Tune trial each, {data['seconds_per_run']:.0f} s of training, 1 seed.", "",
             "| config | env steps/s |", "|---|---|"]  # fmt: skip
    return lines + [f"| `{name}` | {rate:.0f} |" for name, rate in data["env_steps_per_s"].items()]


def render_racing(data: dict, notes: Notes) -> list[str]:
    reference = data["reference"]
    lines = [
        f"Reference: `{data['sweep']} --no-race`, {reference['trials']} trials, "
        f"{reference['env_steps']:,.0f} env steps in {reference['seconds'] / 60:.1f} min "
        f"({_hand_over(reference)}); verdict {reference['verdict']}: {reference['summary']}",
        "",
        "Its top set (cells it cannot tell from its best): "
        + ("; ".join(reference["top_set"]) or "none"),
        "",
        "| race (first seed) | trials | eliminated per rung | pick | in top set | env steps "
        "(share) | wall time (share) | hand-over | verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for race, seed in zip(data["races"], data.get("first_seeds", (100, 200, 300)), strict=False):
        lines.append(
            f"| {seed} | {race['trials']} | {race['eliminated_per_rung']} | {race['pick']} | "
            f"{'yes' if race['in_top_set'] else 'NO'} | {race['env_steps']:,.0f} "
            f"({race['env_steps_share']:.0%}) | {race['seconds'] / 60:.1f} min "
            f"({race['seconds_share']:.0%}) | {_hand_over(race)} | {race['verdict']} |"
        )
    target = f"every pick in the top set at <= {data['target_share']:.0%} of the env steps"
    measured = len(data["races"])
    partial = f" (only {measured} of 3 races measured so far)" if measured < 3 else ""
    lines += ["", f"Target: {target}: {_verdict(data['met'])}{partial}."]
    lines += _replays(data.get("replays"), len(data["races"]))
    lines += _k_race(data.get("k_race"))
    lines += _racing_limits(data)
    lines += _rebuild(data.get("rebuild"), reference.get("hand_over"))
    return [*lines, "", *notes.lines("pooled"), "", *notes.lines("reference_metrics")]


def _replays(found: dict | None, races: int) -> list[str]:
    """The race replayed from the measured race trials (``suite/bench/race_replay.py``)."""
    if not found or not found["replays"]:
        return []
    share = found["env_steps_share"]
    picks = "; ".join(f"{pick} {count}" for pick, count in found["picks"].items())
    short = found["short_of_trials"]
    return [
        "",
        f"Replayed {found['replays']} times from the {races} races' "
        f"{sum(found['pool_trials'].values())} measured trials (`suite/bench/race_replay.py`: the "
        "race's own state machine, each trial a measured one of its cell drawn at random; not "
        "independent races, they vary which measured seeds a race draws): pick in the "
        f"reference's top set {found['in_top_set']:.0%}, a verdict --promote accepts (leaning or "
        f"decisive) {found['promotable']:.0%}, env-step share median {share['median']:.0%} "
        f"({share['min']:.0%} to {share['max']:.0%}). Picks: {picks}."
        + (f" {short} replays ran out of measured trials and are left out." if short else ""),
    ]


def _k_race(found: dict | None) -> list[str]:
    """The K-only race replayed beside the same schedule over the whole grid."""
    if not found:
        return []

    def odds(entry: dict) -> str:
        strengths = ", ".join(f"{name} {count}" for name, count in entry["strengths"].items())
        tops = "; ".join(f"{top} ({count})" for top, count in entry["top_sets"].items())
        return (
            f"{strengths} of {entry['replays']}; trials median {entry['trials_median']:g}, "
            f"most {entry['trials_most']}; commonest top sets: {tops}"
        )

    return [
        "",
        f"`--budget {found['budget']}` ({found['description']}) replayed the "
        f"same way from all {found['runs']} runs' trials: {odds(found['k_only'])}. The same "
        f"schedule over the whole grid: {odds(found['whole_grid'])}.",
    ]


def _rebuild(found: dict | None, hand_over: dict | None) -> list[str]:
    """What the time between trials is made of (``suite/bench/rebuild.py``), and what reusing
    trial processes would save."""
    if not found or not hand_over or "idle_s_per_trial" not in hand_over:
        return []
    saves = hand_over["checkpoints_per_trial"] * found["save_s"]
    return [
        "",
        f"Time between trials in the reference: {hand_over['gap_s_per_trial']:.1f} s from one "
        f"trial's end to the next one's start (a new trial process), and "
        f"{hand_over['idle_s_per_trial']:.1f} s per trial holding its CPUs without training. "
        f"Measured apart in one process: building the `{found['config']}` algorithm takes "
        f"{found['first_build_s']:.1f} s the first time and {found['rebuild_s']:.1f} s again "
        f"in the warm process; one checkpoint save (RLlib's `save_checkpoint`) "
        f"{found['save_s']:.3f} s, so a trial's {hand_over['checkpoints_per_trial']:.0f} saves "
        f"take about {saves:.1f} s of its idle time. A reused trial process (Tune's "
        "`reuse_actors`; RLlib's algorithm cannot reset itself, so the suite's trainable builds "
        "it again in place, row 10) "
        f"would save the gap and {max(0.0, found['first_build_s'] - found['rebuild_s']):.1f} s "
        f"of the build: {_reuse_share(found, hand_over):.0%} of the reference's wall time.",
    ]


def _reuse_share(found: dict, hand_over: dict) -> float:
    """The share of a run's wall time a reused trial process would save."""
    per_trial = hand_over["gap_s_per_trial"] + max(0.0, found["first_build_s"] - found["rebuild_s"])
    not_training = hand_over["gap_s_per_trial"] + hand_over["idle_s_per_trial"]
    return hand_over["share_of_run"] * per_trial / not_training


def _hand_over(run: dict) -> str:
    found = run.get("hand_over")
    if not found or "idle_s_per_trial" not in found:
        return "n/a"
    per_trial = found["idle_s_per_trial"] + found["gap_s_per_trial"]
    return f"{per_trial:.1f} s per trial, {found['share_of_run']:.0%} of the run"


def _racing_limits(data: dict) -> list[str]:
    """Why the share cannot reach the target on this grid, from the row's own numbers."""
    if "least_env_steps_share" not in data:
        return []
    lines = [
        "",
        f"This schedule's best case is {data['least_env_steps_share']:.0%} of the reference's "
        "env steps: every cell runs its first-rung seeds at the full budget, then the leader "
        "and a challenger run the rest. Only a shorter first rung could save more, and a "
        "short rung must rank the cells as the full budget does. The reference, read at fewer "
        "env steps:",
        "",
        "| env steps | leader there | the reference's pick ranks |",
        "|---|---|---|",
    ]
    for found in data.get("earlier", []):
        rank = "n/a" if found["pick_rank"] is None else f"{found['pick_rank']} of {found['cells']}"
        lines.append(f"| {found['env_steps']:,} | {found['leader']} | {rank} |")
    return lines
