"""Mutation testing of the code that decides what reads as verified (issue 11): mutmut over
``annotate/``, ``judge/``, ``guard/`` and the pipeline's verdict routing, with the fast unit tests
that cover them (``[tool.mutmut]`` in pyproject.toml). Writes ``bench/results/mutation.json``.

    python bench/mutation.py                 # every target (about 10 min on one core)
    python bench/mutation.py judge guard     # some targets; the others keep their last results
    python bench/mutation.py --report        # recount from the last run, without running
    python bench/mutation.py proof --survivors   # after adding tests: rerun the survivors only

mutmut names a module after its path and strips only ``src/``, so the run happens in a scratch
copy that lays ``shared/`` out as ``src/`` (``--workdir``, default a temporary folder kept
between calls, so a run of some targets keeps the others' last results). ``not_checked`` counts
mutants no selected test reaches (or not run yet).

A surviving mutant is killed with a test, or justified in ``bench/results/mutation.json``
(``justified``: the function, the mutated line before/after, and a one-line reason). Justifications
are matched by the mutated lines, not mutmut's numbering, so they survive unrelated edits; one that
no longer matches a survivor is dropped from the file — unless this run did not check its mutant (a
partial rerun): then it stays under ``justified_not_checked``, for the run that checks it again.
Exits 1 while any survivor is unjustified.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "mutation.json"
DEFAULT_WORKDIR = Path(tempfile.gettempdir()) / "tanda-mutation"

TARGETS: dict[str, list[str]] = {
    # what to mutate → mutmut name globs (mutmut mutates whole files; only these are run)
    "annotate": ["tanda.annotate.*"],
    "judge": ["tanda.judge.*"],
    "guard": ["tanda.guard.*"],
    # The verdict routing both runners share: each segment → judge, framing check or a final
    # verdict, and back in answer order (tanda.pipeline.routing).
    "routing": ["tanda.pipeline.routing.*"],
    # Issue 23 item 13: the wave-2 code where planted bugs lived exactly at a limit — the proof
    # chain (ASK-11), the invoice rules, metering, citations, the knowledge tools (KB-01..) and
    # the Stores' charge paths.
    "proof": ["tanda.proof.*"],
    "invoices_rules": ["tanda.invoices.rules.*"],
    "metering": ["tanda.service.metering.*"],
    "citations": ["tanda.ask.citations.*"],
    "knowledge": ["tanda.knowledge.*"],
    # The Stores' charge paths (ASK-12, ASK-13, XC-2) and the ledger entries they write (issue
    # 27): mutmut mutates both adapter files whole, but only the functions that read, charge,
    # meter, grant, adjust or refund credits (with their entries) are run and counted — the
    # conversations, receipts, rate windows, keys, job listing, the ledger's read (``ledger()``)
    # and the migration of files from before the ledger are not in this target.
    "charge_paths": [
        *(
            f"tanda.adapters.sqlite_store.xǁSqliteStoreǁ{method}__mutmut_*"
            for method in (
                "credit_account",
                "_open_account",
                "_charge",
                "_meter",
                "charge",
                "meter",
                "grant_credits",
                "adjust_credits",
                "create_job",
                "replace_job",
            )
        ),
        "tanda.adapters.sqlite_store.x__insert_entry__mutmut_*",
        *(
            f"tanda.adapters.dynamodb_store.xǁDynamoStoreǁ{method}__mutmut_*"
            for method in (
                "credit_account",
                "_entry_put",
                "_transact",
                "_unopened_balance",
                "_open_ledger",
                "_on_ledger",
                "_charge_update",
                "_meter_update",
                "_charge_writes",
                "_meter_writes",
                "charge",
                "meter",
                "_add_writes",
                "grant_credits",
                "adjust_credits",
                "create_job",
                "replace_job",
            )
        ),
        "tanda.adapters.dynamodb_store.x__account__mutmut_*",
        "tanda.adapters.dynamodb_store.x__decimal__mutmut_*",
        "tanda.adapters.dynamodb_store.x__ledger_sk__mutmut_*",
        "tanda.adapters.dynamodb_store.x__always__mutmut_*",
    ],
}
SCOPE = {
    "charge_paths": (
        "SqliteStore.credit_account/_open_account/_charge/_meter/charge/meter/grant_credits/"
        "adjust_credits/create_job/replace_job with _insert_entry, and DynamoStore.credit_account/"
        "_entry_put/_transact/_unopened_balance/_open_ledger/_on_ledger/_charge_update/"
        "_meter_update/_charge_writes/_meter_writes/charge/meter/_add_writes/grant_credits/"
        "adjust_credits/create_job/replace_job with _account, _decimal, _ledger_sk and _always: "
        "the balance read, the conditional charge, metering, grants, operator adjustments, the "
        "cross-check job's charge and refund, and the ledger entry each of them writes in the "
        "same transaction (issue 27), with the opening of a ledger. Not here: reading the "
        "ledger's history (ledger()), the one-off migration of files from before the ledger "
        "(_carry_balances_into_the_ledger, _allow_negative_balances) and the other functions of "
        "both files, which are mutated but neither run nor counted."
    ),
}
# mutmut's exit codes (mutmut.stats.status_by_exit_code): a mutant stopped by its CPU-time limit
# ends with SIGXCPU (-24, 24, 152) or 255 — a timeout, as 36 is.
STATUS = {0: "survived", 1: "killed", 3: "killed", 37: "killed"} | dict.fromkeys(
    (36, -24, 24, 152, 255), "timeout"
)


@dataclass(frozen=True)
class Mutant:
    name: str
    status: str

    @property
    def function(self) -> str:
        """``tanda.pipeline.routing.x_route_segments__mutmut_3`` →
        ``tanda.pipeline.routing.route_segments``;
        methods ``…xǁClassǁmethod__mutmut_1`` → ``….Class.method``."""
        base = self.name.partition("__mutmut_")[0]
        module, _, mangled = base.rpartition(".")
        if mangled.startswith("xǁ"):
            _, cls, method = mangled.split("ǁ")
            return f"{module}.{cls}.{method}"
        return f"{module}.{mangled.removeprefix('x_')}"

    @property
    def target(self) -> str:
        return next(t for t, globs in TARGETS.items() if any(_matches(self.name, g) for g in globs))


def _matches(name: str, glob: str) -> bool:
    return re.fullmatch(re.escape(glob).replace(r"\*", ".*"), name) is not None


def target_of(function: str) -> str | None:
    """The target a justified survivor's function (``Mutant.function``) belongs to."""
    module, _, name = function.rpartition(".")
    owner, _, method = module.rpartition(".")
    candidates = (f"{module}.x_{name}__mutmut_1", f"{owner}.xǁ{method}ǁ{name}__mutmut_1")
    return next(
        (
            target
            for target, globs in TARGETS.items()
            if any(_matches(c, g) for c in candidates for g in globs)
        ),
        None,
    )


def lay_out(workdir: Path) -> None:
    """Copy the sources as ``src/`` plus the tests and the config into ``workdir``; keep mutmut's
    ``mutants/`` state where the sources did not change."""
    workdir.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for source, target in ((ROOT / "shared", workdir / "src"), (ROOT / "tests", workdir / "tests")):
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target, ignore=ignore)
    for name in ("pyproject.toml", "template.yaml"):  # the template: moto's DynamoDB tables
        shutil.copy2(ROOT / name, workdir / name)


def mutmut(workdir: Path, *args: str, capture: bool = False) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", *args],
        cwd=workdir,
        check=not capture,
        capture_output=capture,
        text=True,
    )
    return done.stdout if capture else ""


def mutants(workdir: Path) -> list[Mutant]:
    found: list[Mutant] = []
    for meta in sorted((workdir / "mutants" / "src").rglob("*.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        for name, code in data["exit_code_by_key"].items():
            if any(_matches(name, g) for globs in TARGETS.values() for g in globs):
                found.append(
                    Mutant(
                        name, "not checked" if code is None else STATUS.get(code, f"exit {code}")
                    )
                )
    return found


def mutation_of(workdir: Path, name: str, cache: dict[str, dict[str, str]]) -> dict[str, str]:
    """The mutated lines of one mutant, as ``before`` / ``after`` (whitespace-trimmed).
    ``mutmut show`` takes a second a mutant, so its answers are kept in ``cache`` by the mutant's
    name and the digest of its mutated module (a changed source makes them be asked again)."""
    module = workdir / "mutants" / "src" / Path(*name.rpartition(".")[0].split("."))
    digest = hashlib.sha256(module.with_suffix(".py").read_bytes()).hexdigest()
    kept = cache.get(name)
    if kept is not None and kept["digest"] == digest:
        return {"before": kept["before"], "after": kept["after"]}
    diff = mutmut(workdir, "show", name, capture=True)
    lines = [
        line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ]
    before = "\n".join(line[1:].strip() for line in lines if line.startswith("-"))
    after = "\n".join(line[1:].strip() for line in lines if line.startswith("+"))
    cache[name] = {"digest": digest, "before": before, "after": after}
    return {"before": before, "after": after}


def report(workdir: Path) -> dict[str, Any]:
    previous = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    reasons = {
        (j["function"], j["before"], j["after"]): j["reason"]
        for key in ("justified", "justified_not_checked")
        for j in previous.get(key, [])
    }
    reasoned = {function for function, _, _ in reasons}
    counts = {t: Counter[str]() for t in TARGETS}
    justified: list[dict[str, str]] = []
    unjustified: list[dict[str, str]] = []
    # A justified survivor that this run did not check (a partial rerun) keeps its reason for the
    # run that checks it again; it is listed apart and counted as not checked.
    not_checked: list[dict[str, str]] = []
    found = mutants(workdir)
    diffs = workdir / "mutation-diffs.json"
    cache = json.loads(diffs.read_text(encoding="utf-8")) if diffs.exists() else {}
    checked = {m.target for m in found if m.status != "not checked"}
    # A target this workdir never ran (a fresh --workdir, or another checkout) keeps the figures
    # and justifications of the run that last wrote the results, and says so.
    earlier = {
        t
        for t, figures in previous.get("by_target", {}).items()
        if t in TARGETS and t not in checked and figures["mutants"] > figures["not_checked"]
    }
    for mutant in found:
        if mutant.target in earlier:
            continue
        status = mutant.status
        if status == "not checked" and mutant.function in reasoned:
            entry = {"function": mutant.function, **mutation_of(workdir, mutant.name, cache)}
            reason = reasons.get((entry["function"], entry["before"], entry["after"]))
            if reason is not None:
                not_checked.append({**entry, "reason": reason})
        if status == "survived":
            entry = {"function": mutant.function, **mutation_of(workdir, mutant.name, cache)}
            reason = reasons.get((entry["function"], entry["before"], entry["after"]))
            if reason is None:
                unjustified.append({**entry, "mutant": mutant.name})
            else:
                justified.append({**entry, "reason": reason})
                status = "justified"
        counts[mutant.target][status] += 1
    diffs.write_text(json.dumps(cache, ensure_ascii=False), encoding="utf-8")
    by_target = {
        target: {
            "mutants": sum(c.values()),
            "killed": c["killed"] + c["timeout"],
            "survived": c["survived"] + c["justified"],
            "justified": c["justified"],
            "unjustified": c["survived"],
            "not_checked": sum(c.values())
            - c["killed"]
            - c["timeout"]
            - c["survived"]
            - c["justified"],
        }
        for target, c in counts.items()
    }
    by_target |= {t: previous["by_target"][t] for t in earlier}
    for kept, entries in (
        (justified, "justified"),
        (unjustified, "unjustified"),
        (not_checked, "justified_not_checked"),
    ):
        kept += [e for e in previous.get(entries, []) if target_of(e["function"]) in earlier]
    total = {key: sum(c[key] for c in by_target.values()) for key in next(iter(by_target.values()))}
    unique = {(j["function"], j["before"], j["after"]): j for j in justified}
    return {
        "tool": f"mutmut {version('mutmut')}",
        "command": "python bench/mutation.py",
        "targets": TARGETS,
        "total": total,
        "by_target": by_target,
        "from_an_earlier_run": sorted(earlier),
        "scope": SCOPE,
        "unjustified": unjustified,
        "justified": [unique[k] for k in sorted(unique)],
        "justified_not_checked": sorted(
            not_checked, key=lambda j: (j["function"], j["before"], j["after"])
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("targets", nargs="*", help=f"some of {', '.join(TARGETS)} (default: all)")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    parser.add_argument("--max-children", type=int, default=1, help="parallel mutants (default 1)")
    parser.add_argument("--report", action="store_true", help="only recount the last run")
    parser.add_argument(
        "--survivors",
        action="store_true",
        help="run only the targets' survivors and unchecked mutants of the last run (after "
        "adding tests: the killed ones stay killed while the sources are unchanged)",
    )
    args = parser.parse_args()
    unknown = set(args.targets) - set(TARGETS)
    if unknown:
        parser.error(f"unknown targets: {', '.join(sorted(unknown))}")
    if not args.report:
        lay_out(args.workdir)
        targets = args.targets or list(TARGETS)
        names = [g for t in targets for g in TARGETS[t]]
        if args.survivors:
            names = [
                m.name
                for m in mutants(args.workdir)
                if m.target in targets and m.status in ("survived", "not checked")
            ]
        if names:
            mutmut(args.workdir, "run", "--max-children", str(args.max_children), *names)
    result = report(args.workdir)
    RESULTS.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({"total": result["total"], "unjustified": len(result["unjustified"])}))
    return 1 if result["unjustified"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
