#!/usr/bin/env python3
"""Every Objective-C example in the documentation is a piece of a file the iOS compile step
compiles.

An Objective-C code block (```objc) in a Markdown file or a `///` doc comment must start with a
caption line `// Name.m` (or `.h`) naming a file in docs/Snippets/, and the rest of the block
must stand in that file as a run of whole lines, exactly. Scripts/ios-compile-check.sh compiles
every docs/Snippets/*.m against the real iOS SDK, so a snippet in the docs compiles as written.

With `--headers DIR` (the `-Swift.h` headers the compile emitted) it also checks what a compile
cannot see: a delegate method with a misspelled selector is just another method to clang, never
called. So in a snippet class that subclasses NSObject and adopts the SDK's protocols, every
method must be a requirement of one of those protocols (or of the protocols they inherit); and
every callback a product protocol it adopts declares itself must be implemented, so the docs
show the Objective-C form of each callback the product makes.

Usage: check-objc-snippets.py [--headers DIR] [ROOT] — exits 1 listing what is wrong.
"""
import pathlib
import re
import sys

FENCE = re.compile(r"^(\s*)```\s*(objc|objective-c|objectivec)\s*$", re.IGNORECASE)
CAPTION = re.compile(r"^//\s*([A-Za-z0-9_+-]+\.[mh])\s*$")


def documents(root):
    """Every Markdown and Swift file below `root`, outside hidden and build folders."""
    found = []
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if path.suffix in (".md", ".swift") and path.is_file() and not any(
                part.startswith(".") or part in ("Packages", "DerivedData") for part in parts):
            found.append(path)
    return found


def markdown_lines(path):
    """(line number, text) of the Markdown in the file: the whole file, or a Swift file's `///` comments."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if path.suffix == ".md":
        return list(enumerate(lines, 1))
    out = []
    for number, line in enumerate(lines, 1):
        match = re.match(r"^\s*/// ?(.*)$", line)
        if match:
            out.append((number, match.group(1)))
    return out


def blocks(lines):
    """(line number, lines) of each Objective-C block, with the fence's indentation removed."""
    found, index = [], 0
    while index < len(lines):
        number, text = lines[index]
        fence = FENCE.match(text)
        index += 1
        if not fence:
            continue
        indent, body = fence.group(1), []
        while index < len(lines) and lines[index][1].strip() != "```":
            line = lines[index][1]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            index += 1
        index += 1
        found.append((number, body))
    return found


def contains(haystack, needle):
    return any(haystack[start:start + len(needle)] == needle for start in range(len(haystack) - len(needle) + 1))


def selector(declaration):
    """`navigateToChatForUser:` from `- (void)navigateToChatForUser:(PNUser *)user {`."""
    text, index, pieces = declaration.strip()[1:].lstrip(), 0, []

    def skip_parens(i):
        depth = 0
        while i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                return i
        return i

    if text.startswith("("):
        index = skip_parens(0)
    while True:
        match = re.compile(r"\s*(\w*)\s*(:?)").match(text, index)
        if not match or not (match.group(1) or match.group(2)):
            break
        if not match.group(2):
            if not pieces:
                pieces.append(match.group(1))
            break
        pieces.append(match.group(1) + ":")
        index = match.end()
        while index < len(text) and text[index].isspace():
            index += 1
        if index < len(text) and text[index] == "(":
            index = skip_parens(index)
        match = re.compile(r"\s*\w+").match(text, index)  # the argument's name
        if match:
            index = match.end()
    return "".join(pieces)


def protocols(headers):
    """Each protocol of the emitted headers: (parents, selectors of its methods)."""
    found = {}
    for header in sorted(pathlib.Path(headers).glob("*-Swift.h")):
        current = None
        for line in header.read_text(encoding="utf-8").splitlines():
            match = re.match(r"^@protocol (\w+) <([^>]*)>", line)
            if match:
                current = match.group(1)
                found[current] = ([p.strip() for p in match.group(2).split(",")], set())
            elif line.startswith("@end"):
                current = None
            elif current and line.startswith("- ("):
                found[current][1].add(selector(line))
    return found


def own_requirements(name, known):
    return set(known.get(name, ([], set()))[1])


def requirements(name, known):
    parents, selectors = known.get(name, ([], set()))
    result = set(selectors)
    for parent in parents:
        result |= requirements(parent, known)
    return result


def delegate_methods(snippets, headers):
    """Methods of snippet classes (NSObject subclasses adopting the SDK's protocols) that no
    adopted protocol declares."""
    known, problems, checked = protocols(headers), [], 0
    if not known:
        return [f"no protocols in the headers of {headers}"], 0
    for path in sorted(snippets.glob("*.[mh]")):
        for match in re.finditer(r"@interface (\w+) : NSObject <([^>]*)>", path.read_text(encoding="utf-8")):
            adopted = [p.strip() for p in match.group(2).split(",") if p.strip() in known]
            if not adopted:
                continue
            allowed = set().union(*(requirements(p, known) for p in adopted))
            implemented = set()
            for implementation in snippets.glob("*.m"):
                text = implementation.read_text(encoding="utf-8")
                body = re.search(r"@implementation %s\b(.*?)^@end" % match.group(1), text, re.S | re.M)
                if not body:
                    continue
                for line in body.group(1).splitlines():
                    if re.match(r"^[-+] \(", line):
                        checked += 1
                        name = selector(line)
                        implemented.add(name)
                        if name not in allowed:
                            problems.append(f"docs/Snippets/{implementation.name}: {match.group(1)} implements -{name}, "
                                            f"which none of {', '.join(adopted)} declares (a misspelled delegate method is never called)")
            for protocol in adopted:
                for name in sorted(own_requirements(protocol, known) - implemented):
                    problems.append(f"docs/Snippets: {match.group(1)} does not implement -{name} of {protocol}: "
                                    "the docs must show every callback in Objective-C")
    return problems, checked


def main():
    arguments = sys.argv[1:]
    headers = None
    if arguments[:1] == ["--headers"]:
        headers, arguments = arguments[1], arguments[2:]
    root = pathlib.Path(arguments[0] if arguments else pathlib.Path(__file__).resolve().parent.parent)
    snippets = root / "docs" / "Snippets"
    problems, checked, used = [], 0, set()
    methods = 0
    if headers:
        found, methods = delegate_methods(snippets, headers)
        problems += found
    for path in documents(root):
        for number, body in blocks(markdown_lines(path)):
            checked += 1
            where = f"{path.relative_to(root)}:{number}"
            caption = CAPTION.match(body[0].strip()) if body else None
            if not caption:
                problems.append(f"{where}: an Objective-C block must start with `// Name.m`, the docs/Snippets file it comes from")
                continue
            source = snippets / caption.group(1)
            if not source.is_file():
                problems.append(f"{where}: docs/Snippets/{caption.group(1)} does not exist")
                continue
            used.add(source.name)
            shown = body[1:]
            while shown and not shown[0].strip():
                shown.pop(0)
            while shown and not shown[-1].strip():
                shown.pop()
            if not contains(source.read_text(encoding="utf-8").splitlines(), shown):
                problems.append(f"{where}: the block differs from docs/Snippets/{caption.group(1)} (it must be a run of that file's lines)")
    if problems:
        print("\n".join(problems))
        return 1
    if checked == 0:
        print("check-objc-snippets: no Objective-C block found: the documents moved?")
        return 1
    print(f"check-objc-snippets: {checked} Objective-C blocks match their files ({len(used)} of "
          f"{len(list(snippets.glob('*.[mh]')))} snippet files shown)"
          + (f"; {methods} delegate methods are protocol requirements" if headers else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
