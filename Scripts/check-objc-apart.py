#!/usr/bin/env python3
"""Keeps the SDK's Objective-C surface apart from its Swift surface (issue 25).

In Sources/, `canImport(ObjectiveC)` and Objective-C attributes (`@objc`, `@objcMembers`,
`@nonobjc`) may appear only:

- in a file of an `API/ObjectiveC/` folder, which is wholly inside one
  `#if canImport(ObjectiveC)` … `#endif` (an `#else` may hold the plain declarations of a
  protocol that must be declared twice; `ObjectiveCSurfaceTests` compares the two sides);
- in `Platform/Apple/`, where Apple frameworks are imported;
- elsewhere only as a type's Objective-C name, which Swift accepts only on the type's own
  declaration, exactly so:

      #if canImport(ObjectiveC)
      @objc(PNName)                      (or `@objc(PNName) @objcMembers`)
      #endif
      public final class TheSwiftName …  (the next line declares the type)

Anything else fails: a member's `@objc` behind an `#if` (it belongs in `API/ObjectiveC/`, as an
Objective-C-only method that forwards to the Swift one), an `@objc` behind another condition,
a second `#if` in an `API/ObjectiveC/` file, or code outside its `#if`.

Usage: check-objc-apart.py [ROOT]     checks ROOT/Sources (default: the repository)
       check-objc-apart.py --self-test  proves that each kind of mistake above is caught
"""
import pathlib
import re
import sys

CONDITION = "#if canImport(ObjectiveC)"
NAME = re.compile(r"^@objc\((\w+)\)( @objcMembers)?$")
ATTRIBUTE = re.compile(r"(^|[\s(])@(objc|objcMembers|nonobjc)\b")
TYPE = re.compile(
    r"^(@\w+(\([^)]*\))?\s+)*((public|open|internal|package|fileprivate|private)\s+)?(final\s+)?"
    r"(class|enum|protocol|struct|actor)\s+\w+")


def code(line):
    """The line without a `//` comment (doc comments mention `@objc` freely)."""
    return line.split("//", 1)[0].strip()


def check_objectivec_file(path, lines):
    problems = []
    significant = [(number, line) for number, line in enumerate(lines, 1) if line.strip()]
    if not significant or significant[0][1] != CONDITION or significant[-1][1] != "#endif":
        problems.append(f"{path}: an API/ObjectiveC file is wholly inside one {CONDITION} … #endif")
    depth = 0
    for number, line in significant:
        stripped = line.strip()
        if "canImport(ObjectiveC)" in stripped and number != significant[0][0]:
            problems.append(f"{path}:{number}: one #if per API/ObjectiveC file; this is a second canImport(ObjectiveC)")
        if stripped.startswith("#if"):
            depth += 1
        elif stripped.startswith("#endif"):
            depth -= 1
            if depth == 0 and number != significant[-1][0]:
                problems.append(f"{path}:{number}: code after the file's #endif is outside its {CONDITION}")
    return problems


def check_swift_file(path, lines):
    """Outside API/ObjectiveC and Platform/Apple: only the type-name form."""
    problems = []
    allowed = set()  # line numbers (1-based) that belong to a correct type-name form
    for index, line in enumerate(lines):
        if "canImport(ObjectiveC)" not in code(line):
            continue
        number = index + 1
        indent = line[: len(line) - len(line.lstrip())]
        block = lines[index : index + 4]
        name = NAME.match(block[1].strip()) if len(block) > 1 else None
        if (
            line != indent + CONDITION
            or len(block) < 4
            or not block[1].startswith(indent + "@")
            or not name
            or block[2] != indent + "#endif"
            or not TYPE.match(block[3][len(indent) :] if block[3].startswith(indent) else "")
        ):
            problems.append(
                f"{path}:{number}: canImport(ObjectiveC) outside API/ObjectiveC/ and Platform/Apple/ may only give a "
                "type its Objective-C name (#if canImport(ObjectiveC) / @objc(Name) / #endif above the type); "
                "move other Objective-C code to the module's API/ObjectiveC/")
            continue
        allowed.update({number, number + 1, number + 2})
    for index, line in enumerate(lines):
        number = index + 1
        if number not in allowed and ATTRIBUTE.search(code(line)):
            problems.append(
                f"{path}:{number}: Objective-C attribute outside API/ObjectiveC/ and Platform/Apple/ "
                "(only a type's @objc(Name), inside #if canImport(ObjectiveC), may be here)")
    return problems


def check(files):
    """`files`: {relative path: text}. Returns (problems, counts)."""
    problems = []
    counts = {"type names": 0, "API/ObjectiveC": 0, "Platform/Apple": 0}
    for path in sorted(files):
        lines = files[path].split("\n")
        occurrences = sum("canImport(ObjectiveC)" in line for line in lines)
        if "/API/ObjectiveC/" in path:
            problems += check_objectivec_file(path, lines)
            counts["API/ObjectiveC"] += occurrences
        elif "/Platform/Apple/" in path:
            counts["Platform/Apple"] += occurrences
        else:
            found = check_swift_file(path, lines)
            problems += found
            counts["type names"] += occurrences
    return problems, counts


def read(root):
    sources = pathlib.Path(root) / "Sources"
    return {str(path.relative_to(root)): path.read_text(encoding="utf-8") for path in sorted(sources.rglob("*.swift"))}


def self_test(root):
    files = read(root)
    problems, _ = check(files)
    if problems:
        print("check-objc-apart self-test: the tree itself fails:\n" + "\n".join(problems))
        return 1
    diagnostics = "Sources/CometChatPushNotificationsSwift/API/CometChatPushNotifications+Diagnostics.swift"
    facade = "Sources/CometChatPushNotificationsSwift/API/ObjectiveC/CometChatPushNotifications+ObjectiveC.swift"
    kind = "Sources/CometChatPushNotificationsSwift/API/CometChatNotificationKind.swift"
    clear = "    public func clearBadgeCount() {"
    mutations = [
        ("a member's @objc behind #if canImport(ObjectiveC)", diagnostics, clear,
         "    #if canImport(ObjectiveC)\n    @objc(clearBadgeCount)\n    #endif\n" + clear,
         "may only give a type its Objective-C name"),
        ("a member's @objc behind another condition", diagnostics, clear,
         "    #if os(iOS)\n    @objc(clearBadgeCount)\n    #endif\n" + clear, "Objective-C attribute outside"),
        ("a type name without an explicit name", kind, "@objc(PNNotificationKind)", "@objc",
         "may only give a type its Objective-C name"),
        ("a type-name block above a member, not a type", diagnostics, clear,
         "    #if canImport(ObjectiveC)\n    @objc(PNClear)\n    #endif\n" + clear, "may only give a type its Objective-C name"),
        ("a second #if in an API/ObjectiveC file", facade, "// MARK: Notifications",
         "#endif\n#if canImport(ObjectiveC)\n// MARK: Notifications", "a second canImport"),
        ("code after an API/ObjectiveC file's #endif", facade, "\n#endif\n",
         "\n#endif\nextension CometChatPushNotifications {}\n", "outside its #if"),
    ]
    for name, path, old, new, reason in mutations:
        if old not in files[path]:
            print(f"check-objc-apart self-test: '{old}' is no longer in {path}; pick another mutation")
            return 1
        mutated = dict(files)
        if old == "\n#endif\n":
            head, _, tail = mutated[path].rpartition(old)
            mutated[path] = head + new + tail
        else:
            mutated[path] = mutated[path].replace(old, new, 1)
        found, _ = check(mutated)
        if not any(reason in problem for problem in found):
            print(f"check-objc-apart self-test: {name} was not caught (found: {found})")
            return 1
        print(f"check-objc-apart self-test: caught {name}")
    print(f"check-objc-apart self-test: ok ({len(mutations)} kinds of mistake caught)")
    return 0


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    if sys.argv[1:] == ["--self-test"]:
        return self_test(root)
    if len(sys.argv) > 2:
        print(__doc__.strip().splitlines()[-2])
        return 2
    if len(sys.argv) == 2:
        root = pathlib.Path(sys.argv[1])
    problems, counts = check(read(root))
    if problems:
        print("\n".join(problems))
        print("check-objc-apart: FAILED (see Scripts/check-objc-apart.py for the rule)")
        return 1
    total = sum(counts.values())
    print(f"check-objc-apart: {total} canImport(ObjectiveC) in Sources: {counts['type names']} type names, "
          f"{counts['API/ObjectiveC']} API/ObjectiveC files, {counts['Platform/Apple']} in Platform/Apple")
    return 0


if __name__ == "__main__":
    sys.exit(main())
