#!/usr/bin/env python3
"""Lists public symbols without a documentation comment, from Swift symbol graphs.

Usage: doc-coverage.py SYMBOL_GRAPH_DIR MODULE [MODULE ...] — exits 1 when any is missing, and
when a module has no public symbol at all (its symbol graph is missing or empty: nothing was
checked, so nothing is proved).
Symbols the compiler synthesises or inherits (implicit members, overrides of NSObject, enum
cases' raw-value inits, protocol requirements satisfied by default implementations declared
elsewhere) carry no location in the module's own files and are not counted.
"""
import json
import pathlib
import sys

directory = pathlib.Path(sys.argv[1])
modules = sys.argv[2:]
if not modules:
    print("doc-coverage: no module given")
    sys.exit(2)
missing = []
counted = 0
per_module = {}
for module in modules:
    per_module[module] = 0
    for path in sorted(directory.glob(f"{module}*.symbols.json")):
        graph = json.loads(path.read_text())
        for symbol in graph.get("symbols", []):
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            location = symbol.get("location", {}).get("uri", "")
            if f"/Sources/{module}/" not in location:
                continue  # synthesised, inherited or from another module
            title = ".".join(symbol.get("pathComponents", []))
            kind = symbol.get("kind", {}).get("identifier", "")
            if title.split(".")[-1].startswith("_"):
                continue
            counted += 1
            per_module[module] += 1
            if not symbol.get("docComment", {}).get("lines"):
                line = symbol.get("location", {}).get("position", {}).get("line", 0) + 1
                missing.append(f"{location.split('/Sources/')[-1]}:{line}: {kind} {title}")
empty = [module for module, count in per_module.items() if count == 0]
if empty:
    print(f"doc-coverage: no public symbols found for {', '.join(empty)} in {directory}: nothing was checked")
    sys.exit(1)
if missing:
    print(f"doc-coverage: {len(missing)} of {counted} public symbols have no /// comment:")
    for entry in sorted(set(missing)):
        print("  " + entry)
    sys.exit(1)
print(f"doc-coverage: all {counted} public symbols of {', '.join(modules)} are documented")
