#!/usr/bin/env python3
"""Checks the Objective-C surface of the SDK's products: every public NSObject class, every
public Int-backed enum and every public delegate protocol has an explicit `@objc(Name)`,
wrapped in `#if canImport(ObjectiveC)`. Exits 1 listing what lacks one."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PRODUCTS = ["CometChatPushNotificationsSwift", "CometChatPushNotificationsChat", "CometChatPushNotificationsCalls"]
DECL = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:final\s+)?(?:(class)\s+(\w+)\s*:\s*(?:NSObject|\w+Delegate\b)?"
    r"|(enum)\s+(\w+)\s*:\s*Int\b|(protocol)\s+(\w+Delegate)\b)")


def main():
    problems, checked = [], 0
    for product in PRODUCTS:
        for path in sorted((ROOT / "Sources" / product).rglob("*.swift")):
            lines = path.read_text(encoding="utf-8").splitlines()
            conditions = []  # the active #if branches, as (condition, in_else)
            for index, line in enumerate(lines):
                stripped = line.strip()
                if stripped.startswith("#if "):
                    conditions.append((stripped[4:], False))
                elif stripped.startswith("#else") and conditions:
                    conditions[-1] = (conditions[-1][0], True)
                elif stripped.startswith("#endif") and conditions:
                    conditions.pop()
                objc_branch = any("canImport(ObjectiveC)" in c and not c.startswith("!") and not e for c, e in conditions)
                other_branch = any("canImport(ObjectiveC)" in c and (c.startswith("!") or e) for c, e in conditions)
                if other_branch:
                    continue  # the declaration for platforms without Objective-C
                match = DECL.match(stripped)
                if not match:
                    continue
                kind = match.group(1) or match.group(3) or match.group(5)
                name = match.group(2) or match.group(4) or match.group(6)
                if kind == "class" and "NSObject" not in stripped and "Delegate" not in stripped:
                    continue
                above = "\n".join(lines[max(0, index - 4):index + 1])
                if "@_spi(" in above:
                    continue  # found by module-qualified class name at run time; keeps its Swift name
                checked += 1
                explicit = re.search(r"@objc\((\w+)\)", above)
                guarded = objc_branch or "#if canImport(ObjectiveC)" in above
                if not explicit:
                    problems.append(f"{path.relative_to(ROOT)}:{index + 1}: {kind} {name} has no explicit @objc(Name)")
                elif not guarded:
                    problems.append(f"{path.relative_to(ROOT)}:{index + 1}: {kind} {name}'s @objc is not inside #if canImport(ObjectiveC)")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"check-objc-names: {checked} public classes, Int enums and delegate protocols have explicit Objective-C names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
