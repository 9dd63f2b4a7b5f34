#!/usr/bin/env python3
"""Checks the Objective-C names the SDK exports, as Xcode's callers see them: in the `-Swift.h`
headers that Scripts/ios-compile-check.sh has the compiler emit against the real iOS SDK.

Objective-C has one flat namespace, so every class, protocol and enum a product exports must be
named `PN…` or `CometChatPushNotifications…`, or be a name the reference guide shows in
Objective-C. Every class must have an explicit `@objc(Name)` (its runtime name is then that
name, not a mangled Swift name that changes with the module), except the product classes Core
looks up by module-qualified Swift name.

Usage: check-objc-names.py HEADER_DIR — reads every *-Swift.h there; exits 1 listing offenders.
"""
import pathlib
import re
import sys

PREFIXES = ("PN", "CometChatPushNotifications")
GUIDE_NAMES = {"CometChatPushTokenPlatform"}  # shown in the guide's Objective-C, kept as shown
MANGLED_OK = {"PNChatProduct", "PNCallsProduct"}  # found by NSClassFromString("Module.Name")

CLASS = re.compile(r"^@interface (\w+) :")
PROTOCOL = re.compile(r"^@protocol (\w+) <")
ENUM = re.compile(r"^typedef SWIFT_ENUM(?:_NAMED)?\(\w+, (\w+),")


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1])
        return 2
    headers = sorted(pathlib.Path(sys.argv[1]).glob("*-Swift.h"))
    if not headers:
        print(f"check-objc-names: no *-Swift.h in {sys.argv[1]}")
        return 1
    problems, names = [], 0
    for header in headers:
        lines = header.read_text(encoding="utf-8").splitlines()
        for index, line in enumerate(lines):
            for kind, pattern in (("class", CLASS), ("protocol", PROTOCOL), ("enum", ENUM)):
                match = pattern.match(line)
                if not match:
                    continue
                name, names = match.group(1), names + 1
                where = f"{header.name}:{index + 1}: {kind} {name}"
                if not name.startswith(PREFIXES) and name not in GUIDE_NAMES:
                    problems.append(f"{where}: Objective-C names start with PN (or CometChatPushNotifications)")
                if kind == "class" and not lines[index - 1].startswith("SWIFT_CLASS_NAMED(") and name not in MANGLED_OK:
                    problems.append(f"{where}: no explicit @objc(Name), so its runtime name is mangled")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"check-objc-names: {names} Objective-C names in {len(headers)} headers are prefixed and explicit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
