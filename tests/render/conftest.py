"""The one canonical `Report` every renderer is tested on, built in memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from slim_analyzers.gpu._details import ArchBytes, KernelsDetails, TargetShare

from slim.model.actions import Remove
from slim.model.facts import InputFile
from slim.model.findings import Confidence, Evidence, Finding, Rule, Saving, Suppression
from slim.model.graph import Location
from slim.model.report import (
    EvidenceStatus,
    Excluded,
    Proposal,
    Report,
    RootSummary,
    SavingsSummary,
    TimingCoverage,
)
from slim.plan.fixes import buildozer_fix
from tests import golden

GOLDEN = Path(__file__).parent / "golden"
ROOT = "//serving:cpu_server"
UNICODE = "//i18n:données_ü"


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return golden.update_goldens(request)


RULES = [
    Rule("SLIM001", "unused-python-dep", "A Python dep whose modules are never imported.", "h1"),
    Rule(
        "SLIM002",
        "unreferenced-native-dep",
        "A native library none of whose symbols the binary references.",
        "Keep it if it registers itself with static initializers (alwayslink).",
    ),
    Rule("SLIM003", "gpu-kernels-in-cpu-binary", "CUDA kernels linked into a CPU-only binary."),
    Rule("SLIM900", "evidence-missing", "A check could not run.", "Pass the named input."),
]


def canonical_findings() -> tuple[list[Finding], list[Finding]]:
    safe = Finding(
        code="SLIM001",
        name="unused-python-dep",
        target="//py/apps:tool",
        dep="//py/unused_lib:unused_lib",
        verdict="dead",
        message="no module of //py/unused_lib is imported by any trace or source",
        confidence=Confidence.HIGH,
        removable=True,
        root=ROOT,
        attribute="deps",
        location=Location("py/apps/BUILD", 3),
        evidence=(
            Evidence("traces/tool.importtime", "unused_lib never imported", line=12),
            Evidence("py/apps/tool.py", "no `import unused_lib`", analyzer="python"),
        ),
        action=Remove("//py/apps:tool", "//py/unused_lib:unused_lib"),
        fix=buildozer_fix(Remove("//py/apps:tool", "//py/unused_lib:unused_lib")),
        saving=Saving(
            compile_seconds=1.5,
            link_seconds=0.25,
            bytes=2048,
            removed=("//py/unused_lib:unused_lib", "//py/unused_lib:csv"),
            compile_basis="measured",
            link_basis="estimated (model, fit on 3 targets)",
            bytes_basis="python package footprint",
        ),
        dep_location=Location("py/apps/BUILD", 7),
        dep_line_alone=True,
    )
    unsafe = Finding(
        code="SLIM002",
        name="unreferenced-native-dep",
        target=ROOT,
        dep="//native/weakhooks:weakhooks",
        verdict="kept: weak symbols",
        message="no symbol referenced, but the archive defines weak hooks | may be used",
        confidence=Confidence.MEDIUM,
        removable=False,
        root=ROOT,
        attribute="deps",
        location=Location("serving/BUILD", 1),
        evidence=(Evidence("out/cpu_server.map", "weakhooks.o not pulled", offset=4096),),
    )
    missing = Finding(
        code="SLIM900",
        name="evidence-missing",
        target=ROOT,
        dep="",
        verdict="not-checked",
        message="SLIM004 unused-shared-lib not checked: no binary evidence given.",
        confidence=Confidence.HIGH,
        removable=False,
        root=ROOT,
    )
    unicode = Finding(
        code="SLIM003",
        name="gpu-kernels-in-cpu-binary",
        target=UNICODE,
        dep="//kernels:cuda_kernels",
        verdict="dead",
        message="fatbin is 100% of .nv_fatbin <sm_80>\nand the binary is *CPU-only*",
        confidence=Confidence.LOW,
        removable=True,
        root=ROOT,
        attribute="deps",
        location=Location("i18n/BUILD", 4),
        evidence=(Evidence("bin/données", "12 kernels in .nv_fatbin", offset=128),),
        action=Remove(UNICODE, "//kernels:cuda_kernels"),
        fix=buildozer_fix(Remove(UNICODE, "//kernels:cuda_kernels")),
        saving=Saving(
            bytes=1_048_576,
            removed=("//kernels:cuda_kernels",),
            compile_basis="default",
            bytes_basis="fatbin bytes",
        ),
        details=KernelsDetails(
            binary="bin/données",
            cpu_only_source="cpu_only in slim.toml",
            kernels=("k1", "k2"),
            archs=(
                ArchBytes("sm_80", 1_048_000, "in CPU-only binary"),
                ArchBytes("compute_80", 576),
            ),
            bytes=1_048_576,
            targets=(TargetShare("//kernels:cuda_kernels", 1_048_576),),
        ),
    )
    suppressed = Finding(
        code="SLIM001",
        name="unused-python-dep",
        target="//py/apps:tool",
        dep="//py/optional_lib:optional_lib",
        verdict="dead",
        message="no module of //py/optional_lib is imported",
        confidence=Confidence.HIGH,
        removable=True,
        root=ROOT,
        attribute="deps",
        location=Location("py/apps/BUILD", 3),
        dep_location=Location("py/apps/BUILD", 8),
        suppression=Suppression(
            "py/apps/BUILD:8", "loaded by name at runtime", in_source=True, path="py/apps/BUILD"
        ),
    )
    return [safe, unsafe, missing, unicode], [suppressed]


def canonical_report() -> Report:
    findings, suppressed = canonical_findings()
    total = Saving(
        compile_seconds=1.5,
        link_seconds=0.25,
        bytes=1_050_624,
        removed=("//kernels:cuda_kernels", "//py/unused_lib:csv", "//py/unused_lib:unused_lib"),
        compile_basis="measured",
        link_basis="estimated (model, fit on 3 targets)",
        bytes_basis="python package footprint; fatbin bytes",
    )
    root = RootSummary(
        label=ROOT,
        kind="cc_binary",
        targets=9,
        edges=11,
        direct_deps=("//native/weakhooks:weakhooks", "//py/apps:tool", UNICODE),
        by_kind=(("cc_binary", 1), ("cc_library", 4), ("py_library", 4)),
        edges_by_attribute=(("deps", 11),),
    )
    evidence = [
        EvidenceStatus("graph", "build graph export", True, ("exports/query.json",)),
        EvidenceStatus("trace", "runtime Python import traces", True, ("traces/tool.importtime",)),
        EvidenceStatus("binary", "ELF binaries", False),
    ]
    return Report.create(
        roots=[root],
        inputs=[
            InputFile("graph", "exports/query.json", "bazel-jsonproto"),
            InputFile("trace", "traces/tool.importtime", "python-importtime"),
        ],
        evidence=evidence,
        findings=findings,
        rules=RULES,
        proposals=[
            Proposal(
                root=ROOT,
                target="//py/apps:tool",
                remove=("//py/unused_lib:unused_lib",),
                new_deps=("//py/common:common",),
                fixes=(buildozer_fix(Remove("//py/apps:tool", "//py/unused_lib:unused_lib")),),
                saving=findings[0].saving,
                codes=("SLIM001",),
            )
        ],
        notes=["graph: 1 external target not described"],
        savings=SavingsSummary(
            per_root=((ROOT, total),),
            total=total,
            excluded=(Excluded("SLIM001", ROOT, "//py/apps:tool", "//x:rt", "runtime_deps"),),
        ),
        timings=TimingCoverage(actions=12, attributed=10, unattributed_seconds=0.5),
        suppressed=suppressed,
    )


def empty_report() -> Report:
    return Report.create(
        roots=[],
        inputs=[],
        evidence=[EvidenceStatus("graph", "build graph export", False)],
        findings=[],
        rules=[],
    )


@pytest.fixture
def report() -> Report:
    return canonical_report()


@pytest.fixture
def empty() -> Report:
    return empty_report()
