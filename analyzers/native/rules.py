"""The native family's rules: codes, names and help, importable without the detectors."""

from __future__ import annotations

from slim.model.findings import Rule

UNREFERENCED = Rule(
    code="SLIM002",
    name="unreferenced-native-dep",
    summary="A native library dep contributes no linked code and no referenced symbol.",
    help=(
        "The linker map of the binary shows no member of the library's archive extracted, "
        "no section of it kept after --gc-sections, and (with --cref) no other input "
        "referencing a symbol it defines. Registration libraries (alwayslink, "
        "--whole-archive), static constructors and weak symbols are never proposed for "
        "removal, nor is an edge whose dependant's compile reads (or probes with "
        "__has_include) the library's headers or "
        "gets its definitions (CMake usage requirements, Bazel defines, Buck2 exported "
        "preprocessor flags); a graph that cannot show those (a ninja or DOT graph, Buck2 "
        "JSON without the exported flag attributes) never proves a cut. Link with "
        "-Wl,-Map=app.map,--cref,--gc-sections, pass the "
        "library archives with --binary and the compile's depfiles with --compile for a "
        "certain verdict."
    ),
)

UNUSED_SHARED = Rule(
    code="SLIM004",
    name="unused-shared-lib",
    summary="A shared library the binary links provides no symbol the binary uses.",
    help=(
        "Pass the binary and its shared libraries with --binary. A library from which "
        "neither the binary nor another needed library resolves a symbol can be dropped "
        "(or linked with -Wl,--as-needed), once the edge to it is judged as SLIM002 judges "
        "one: compile-time evidence (--compile) shows no header of it read, and every "
        "binary linking a library's edge was checked. Linked with -Wl,--as-needed, the "
        "linker drops such a library itself: the linker map (--linkmap) shows it was given "
        "(LOAD), no DT_NEEDED names it, and only the build edge is left; an edge to a "
        "wrapper that brings nothing else (a CMake INTERFACE library) is the cut. A library "
        "whose name the binary or a library the program loads holds in its data (it may "
        "dlopen it) is kept, as is every library of a program that calls dlopen, itself or "
        "in a library it loads (a name built at run time shows in no data), and one "
        "defining a symbol whose name one of them that calls dlsym holds as a string."
    ),
)
