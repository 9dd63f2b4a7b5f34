#!/usr/bin/env python3
"""Checks that every Objective-C selector and type used in the Objective-C usage article exists
in the SDK's @objc declarations.

Declared names come from the Swift sources: explicit `@objc(name)` attributes, and the implicit
Objective-C names of members of `@objc` protocols, `@objc` members and `@objcMembers` classes.
Used names come from the article's ```objc blocks: message sends, method definitions of the
delegate, properties read with dot syntax from the SDK's objects, and class/protocol names.

Usage: check-objc-selectors.py [ARTICLE.md] — exits 1 listing what is missing.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
ARTICLE = ROOT / "Sources/CometChatPushNotificationsSwift/CometChatPushNotificationsSwift.docc/ObjectiveC.md"
APPLE_SELECTOR_PREFIXES = ("application:",)
APP_RECEIVERS = {"self", "super"}


def implicit_selector(name, params):
    """Objective-C selector Swift derives for `func name(params)`."""
    params = params.strip()
    if not params:
        return name
    labels = []
    for part in split_params(params):
        head = part.split(":")[0].strip().split()
        labels.append(head[0] if head else "_")
    pieces = []
    first = labels[0]
    pieces.append(name + ("" if first == "_" else "With" + first[0].upper() + first[1:]) + ":")
    for label in labels[1:]:
        pieces.append(("" if label == "_" else label) + ":")
    return "".join(pieces)


def balanced_params(text, name):
    """The text inside the parentheses that follow `func name`."""
    start = text.find("func " + name)
    start = text.find("(", start)
    if start < 0:
        return ""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:index]
    return ""


def split_params(params):
    depth, current, out = 0, "", []
    for ch in params:
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        out.append(current)
    return out


def declared_names():
    names = set()
    for path in (ROOT / "Sources").rglob("*.swift"):
        if "CometChatPushNotificationsTesting" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        names.update(re.findall(r"@objc\(([^)]+)\)", text))
        lines = [l for l in text.splitlines() if not l.strip().startswith(("#if", "#endif", "#else", "///"))]
        objc_members = False
        for i, line in enumerate(lines):
            if "@objcMembers" in line:
                objc_members = True
            window = " ".join(lines[i:i + 3])
            implicit = re.match(r"\s*@objc\s+(optional\s+)?(public\s+|open\s+)?(weak\s+)?(func|var|let)\s+(\w+)", window)
            member = objc_members and re.match(r"\s*(public|open)\s+(final\s+)?(override\s+)?(let|var|func)\s+(\w+)", line)
            for match in (implicit, member):
                if not match:
                    continue
                kind, name = match.group(match.lastindex - 1), match.group(match.lastindex)
                if kind == "func":
                    names.add(implicit_selector(name, balanced_params(window, name)))
                else:
                    names.add(name)
    return names


def innermost_sends(code):
    """Yields (receiver, selector) for every [receiver selector...] message send."""
    pattern = re.compile(r"\[([^\[\]]+)\]")
    while True:
        match = pattern.search(code)
        if not match:
            return
        body = match.group(1).strip()
        code = code[:match.start()] + "RESULT" + code[match.end():]
        if "^" in body or body.startswith("@"):
            continue
        receiver, _, rest = body.partition(" ")
        keywords = re.findall(r"(\w+):", re.sub(r'@"[^"]*"', "S", rest))
        selector = "".join(k + ":" for k in keywords) if keywords else rest.strip()
        yield receiver, selector


def used_names(article):
    blocks = re.findall(r"```objc\n(.*?)```", article.read_text(encoding="utf-8"), re.S)
    used = {}
    for code in blocks:
        code_no_blocks = re.sub(r"\^\s*\([^)]*\)\s*\{", "{", code)
        for receiver, selector in innermost_sends(code_no_blocks):
            if receiver in APP_RECEIVERS or not selector:
                continue
            used.setdefault(selector, "message send to " + receiver)
        for head in re.findall(r"^\s*-\s*\([^)]*\)\s*([^{;]+)", code, re.M):
            selector = "".join(p + ":" for p in re.findall(r"(\w+):\(", head)) or head.strip()
            if not selector.startswith(APPLE_SELECTOR_PREFIXES):
                used.setdefault(selector, "delegate method")
        for chain in re.findall(r"\b(CometChatPushNotifications(?:\.\w+)+)", code):
            for prop in chain.split(".")[1:]:
                used.setdefault(prop, "property in " + chain)
        for prop in re.findall(r"\berror\.(\w+)", code):
            used.setdefault(prop, "PNError property")
        for name in re.findall(r"\b((?:PN|CometChat)\w+)\b", code):
            if not name.startswith("CometChatPushNotifications") or name in (
                "CometChatPushNotifications", "CometChatPushNotificationsDelegate", "CometChatPushNotificationsChatDelegate",
                "CometChatPushNotificationsCallsDelegate"):
                used.setdefault(name, "type or constant")
    return used


def main():
    article = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ARTICLE
    declared = declared_names()
    used = used_names(article)
    enum_cases = set()
    for name in declared:
        enum_cases.add(name)
    missing = []
    for name, where in sorted(used.items()):
        if name in declared:
            continue
        # Objective-C enum constants: PNRingReadinessReady = PNRingReadiness + case name.
        if any(name.startswith(t) and name[len(t):][:1].isupper() for t in declared if t[:1].isupper()):
            continue
        missing.append(f"{name} ({where})")
    if missing:
        print("Objective-C names used in", article, "but not declared:")
        for line in missing:
            print("  -", line)
        return 1
    print(f"check-objc-selectors: all {len(used)} names used in {article.name} are declared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
