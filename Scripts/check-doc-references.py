#!/usr/bin/env python3
"""Fails when the repository cites a document it does not hold.

Every file of the repository (git's tracked and untracked-but-not-ignored files; every file
under the root when it is not a git checkout) is read, and each of these is a problem:

- a `*.md` document named in it (a bare name such as `CHANGELOG.md`, or a path such as
  `docs/IOS-PLATFORM-RULES.md` or `../README.md`) that is not in the repository. A bare name must be the name of a file
  somewhere in it; a path must lead to one from the citing file's folder or from the root, or
  be the tail of one (`Platform/Apple/README.md` in Package.swift);
- a path into the docs folder of the team's shared folder beside the repository (SHARED_NOTES
  below): the repository explains itself;
- in a Markdown file, a relative link or image (`[text](path#anchor)`, `[label]: path`) whose
  file or folder is not there, that leaves the repository, or whose `#anchor` names no heading
  of the Markdown file it points at (headings turned into anchors as GitHub does);
- in the SDK's files (everything outside Server/ and Contract/), a "rule N" or "rules N–M"
  whose number is not a rule of docs/IOS-PLATFORM-RULES.md (its `### N. ` headings);
- two paths that differ only by case (`Docs/` and `docs/`): they merge into one on macOS's
  default file system.

URLs (`https://…`, `file:///…`) and absolute paths are not citations of the repository and are
left alone; so is what ALLOWED lists, each with its reason.

    python3 Scripts/check-doc-references.py              check the repository
    python3 Scripts/check-doc-references.py --root DIR   check another copy
    python3 Scripts/check-doc-references.py --self-test  prove that each kind of problem fails,
                                                         on scratch copies of the repository

Scripts/docs-check.sh runs the check and its self-test (a step of Scripts/test.sh).
"""

import argparse
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path
from urllib.parse import unquote

RULES_DOCUMENT = "docs/IOS-PLATFORM-RULES.md"

# (citing file, citation): why it is not a citation of a document of the repository. (The
# citation is written in two pieces, so that this file does not cite it.)
ALLOWED = {
    ("Scripts/ios-compile-check.sh", "doc-root/ObjectiveC" + ".md"): "a scratch copy its self-test makes and breaks",
}

# Folders that are never part of the repository's content (only when walking a plain folder).
SKIPPED_FOLDERS = {".git", ".build", ".build-docs", ".swiftpm", "__pycache__", "node_modules", "data"}

URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s<>()\"'`\]]*")
SHELL_VARIABLE = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/")
MD_NAME = re.compile(r"(?<![A-Za-z0-9_./@$-])((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.md)(?![A-Za-z0-9_])")
# Written in two pieces, so that this file does not cite it.
SHARED_NOTES = re.compile(r"(?<![A-Za-z0-9_-])shared" + r"/docs(?![A-Za-z0-9_-])")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
INLINE_LINK = re.compile(r"\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE_LINK = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
RULE_CITATION = re.compile(r"\b[Rr]ules?\s+(\d+(?:\s*(?:[,–-]|and|or|to)\s*\d+)*)")
RULE_HEADING = re.compile(r"^###\s+(\d+)\.\s")


def repository_files(root: Path) -> list[str]:
    """The repository's files, relative to root, with `/` separators."""
    if (root / ".git").exists():
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True,
        ).stdout.decode("utf-8", "surrogateescape")
        # A tracked file deleted in the work tree is not there to be cited.
        return sorted({name for name in listed.split("\0") if name and (root / name).is_file()})
    found = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [name for name in subfolders if name not in SKIPPED_FOLDERS]
        for name in names:
            found.append(Path(folder, name).relative_to(root).as_posix())
    return sorted(found)


def read_text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    kept = []
    for char in text:
        if char in " -_" or unicodedata.category(char)[0] in "LNM":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


def markdown_anchors(text: str) -> set[str]:
    anchors, seen = set(), {}
    in_fence = None
    for line in text.splitlines():
        fence = FENCE.match(line)
        if fence:
            marker = fence.group(1)[0]
            in_fence = None if in_fence == marker else (in_fence or marker)
            continue
        if in_fence:
            continue
        heading = HEADING.match(line)
        if heading:
            anchor = github_anchor(heading.group(2))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            anchors.add(anchor if count == 0 else f"{anchor}-{count}")
        anchors.update(HTML_ANCHOR.findall(line))
    return anchors


def markdown_links(text: str):
    """(line number, target) of every relative link and image outside code."""
    in_fence = None
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence:
            marker = fence.group(1)[0]
            in_fence = None if in_fence == marker else (in_fence or marker)
            continue
        if in_fence:
            continue
        line = INLINE_CODE.sub("", line)
        targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
        reference = REFERENCE_LINK.match(line)
        if reference:
            targets.append(reference.group(1))
        for target in targets:
            target = target.strip("<>")
            if target and not SCHEME.match(target):
                yield number, target


def rule_numbers(text: str) -> set[int]:
    return {int(m.group(1)) for line in text.splitlines() if (m := RULE_HEADING.match(line))}


def cited_rules(match: re.Match) -> list[int]:
    """The numbers of "rules 9–13" (both ends), "rules 6, 7 and 9", "rule 10"."""
    return [int(n) for n in re.findall(r"\d+", match.group(1))]


class Checker:
    def __init__(self, root: Path):
        self.root = root
        self.files = repository_files(root)
        self.file_set = set(self.files)
        self.folders = {posixpath.dirname(f) for f in self.files}
        for folder in list(self.folders):
            while folder:
                folder = posixpath.dirname(folder)
                self.folders.add(folder)
        self.basenames = {posixpath.basename(f) for f in self.files}
        self.problems: list[str] = []
        self.anchor_cache: dict[str, set[str]] = {}
        self.allowed_used: set[tuple[str, str]] = set()
        rules_text = read_text(root / RULES_DOCUMENT) if RULES_DOCUMENT in self.file_set else None
        self.rules = rule_numbers(rules_text) if rules_text else set()

    def problem(self, where: str, text: str):
        self.problems.append(f"{where}: {text}")

    def anchors_of(self, path: str) -> set[str]:
        if path not in self.anchor_cache:
            self.anchor_cache[path] = markdown_anchors(read_text(self.root / path) or "")
        return self.anchor_cache[path]

    def resolve(self, citing: str, cited: str) -> str | None:
        """The repository file a `*.md` citation names, or None."""
        if "/" not in cited:
            return cited if cited in self.basenames else None
        for base in (posixpath.dirname(citing), ""):
            path = posixpath.normpath(posixpath.join(base, cited))
            if path in self.file_set:
                return path
        tail = posixpath.normpath(cited)
        if not tail.startswith(".."):
            for path in self.files:
                if path.endswith("/" + tail):
                    return path
        return None

    def check_names(self, path: str, text: str):
        for number, line in enumerate(text.splitlines(), 1):
            if ".md" not in line and "/docs" not in line:
                continue
            line = SHELL_VARIABLE.sub("", URL.sub(" ", line))
            if SHARED_NOTES.search(line):
                self.problem(f"{path}:{number}", "cites the team's shared notes beside the repository, which are not in it")
            for match in MD_NAME.finditer(line):
                cited = match.group(1)
                if (path, cited) in ALLOWED:
                    self.allowed_used.add((path, cited))
                    continue
                if self.resolve(path, cited) is None:
                    self.problem(f"{path}:{number}", f"cites {cited}, which is not in the repository")

    def check_links(self, path: str, text: str):
        for number, target in markdown_links(text):
            location, _, anchor = target.partition("#")
            location = unquote(location.partition("?")[0])
            if not location:
                resolved = path
            else:
                base = "" if location.startswith("/") else posixpath.dirname(path)
                resolved = posixpath.normpath(posixpath.join(base, location.lstrip("/")))
                if resolved == ".." or resolved.startswith("../"):
                    self.problem(f"{path}:{number}", f"links to {target}, outside the repository")
                    continue
                if resolved == ".":
                    resolved = ""
                if resolved not in self.file_set and resolved not in self.folders:
                    self.problem(f"{path}:{number}", f"links to {target}, which is not in the repository")
                    continue
            if anchor and resolved.endswith(".md") and unquote(anchor) not in self.anchors_of(resolved):
                self.problem(f"{path}:{number}", f"links to {target}: {resolved} has no heading with the anchor #{anchor}")

    def check_rules(self, path: str, text: str):
        if path.startswith(("Server/", "Contract/")):
            return
        for number, line in enumerate(text.splitlines(), 1):
            if "ule" not in line:
                continue
            for match in RULE_CITATION.finditer(line):
                for rule in cited_rules(match):
                    if rule not in self.rules:
                        self.problem(f"{path}:{number}", f"cites rule {rule}, which {RULES_DOCUMENT} does not have")

    def check_case(self):
        by_lower: dict[str, set[str]] = {}
        for path in self.files:
            parts = path.split("/")
            for end in range(1, len(parts) + 1):
                prefix = "/".join(parts[:end])
                by_lower.setdefault(prefix.lower(), set()).add(prefix)
        for names in by_lower.values():
            if len(names) > 1:
                self.problem(" and ".join(sorted(names)), "differ only by case, and are one path on macOS's default file system")

    def run(self) -> list[str]:
        for path in self.files:
            text = read_text(self.root / path)
            if text is None:
                continue
            self.check_names(path, text)
            if path.endswith(".md"):
                self.check_links(path, text)
            self.check_rules(path, text)
        self.check_case()
        for path, cited in sorted(set(ALLOWED) - self.allowed_used):
            self.problem(path, f"no longer cites {cited}: remove it from ALLOWED in {Path(__file__).name}")
        return self.problems


def check(root: Path) -> int:
    problems = Checker(root).run()
    for line in problems:
        print(f"doc references: {line}")
    if problems:
        print(f"doc references: FAILED ({len(problems)} problems)")
        return 1
    print("doc references: every cited document, link, anchor and rule is in the repository")
    return 0


def self_test(root: Path) -> int:
    """Each mistake, made in a fresh scratch copy of the repository, must fail the check, and
    for its reason; the unchanged copy must pass."""
    files = repository_files(root)
    missing_doc = "docs/" + "NO-SUCH-DOCUMENT" + ".md"
    rules = sorted(rule_numbers(read_text(root / RULES_DOCUMENT) or "")) or [0]
    test_file = "Tests/CometChatPushNotificationsSwiftTests/SimulatorRulesTests.swift"
    mistakes = [
        ("the unchanged copy", [], None),
        ("a comment citing a missing document",
         [("append", test_file, f"// See {missing_doc}.\n")], f"cites {re.escape(missing_doc)}, which is not in"),
        ("a bare document name nothing has",
         [("append", "Scripts/test.sh", "# as NOWHERE" + ".md says\n")], "cites NOWHERE\\.md, which is not in"),
        ("a citation of the shared notes",
         [("append", "CONTRIBUTING.md", "\nSee `../shared" + "/docs` for more.\n")], "cites the team's shared notes"),
        ("a Markdown link to a missing file",
         [("append", "README.md", "\n[Design](docs/DESIGN" + ".md)\n")], "links to docs/DESIGN\\.md, which is not"),
        ("a Markdown link out of the repository",
         [("append", "docs/ARCHITECTURE.md", "\n[Tool](../../shared/ios-sdk/README" + ".md)\n")], "outside the repository"),
        ("a link to a heading that is not there",
         [("append", "CONTRIBUTING.md", "\n[x](README.md#no-such-heading)\n")], "has no heading with the anchor #no-such-heading"),
        ("a removed document that is still cited",
         [("delete", RULES_DOCUMENT, None)], "cites docs/IOS-PLATFORM-RULES\\.md, which is not in"),
        ("a rule the rules document does not have",
         [("append", test_file, f"// (rule {rules[-1] + 1})\n")], f"cites rule {rules[-1] + 1}, which"),
        ("two folders that differ only by case",
         [("write", "Docs/Snippets/Extra.m", "// a second docs folder\n")], "differ only by case"),
    ]
    failures = 0
    with tempfile.TemporaryDirectory(prefix="doc-references-") as scratch_root:
        for name, changes, expected in mistakes:
            # Hard links, not copies: a file that a mistake changes is written anew.
            scratch = Path(scratch_root, re.sub(r"\W+", "-", name))
            for path in files:
                (scratch / path).parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(root / path, scratch / path)
                except OSError:
                    shutil.copy2(root / path, scratch / path)
            for action, path, text in changes:
                target = scratch / path
                if action == "write":
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(text)
                elif not target.is_file():
                    print(f"doc references self-test: {path} is gone; pick another file for '{name}'")
                    failures += 1
                elif action == "delete":
                    target.unlink()
                else:
                    original = target.read_text()
                    target.unlink()
                    target.write_text(original + text)
            problems = Checker(scratch).run()
            if expected is None:
                if problems:
                    print(f"doc references self-test: {name} fails: {problems[:3]}")
                    failures += 1
            elif not problems:
                print(f"doc references self-test: {name} was not caught")
                failures += 1
            elif not any(re.search(expected, line) for line in problems):
                print(f"doc references self-test: {name} failed, but not for that reason: {problems[:3]}")
                failures += 1
            else:
                print(f"doc references self-test: caught {name}")
            shutil.rmtree(scratch)
    if failures:
        print(f"doc references self-test: FAILED ({failures})")
        return 1
    print(f"doc references self-test: ok ({len(mistakes) - 1} kinds of mistake caught)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--self-test", action="store_true")
    arguments = parser.parse_args()
    root = arguments.root.resolve()
    return self_test(root) if arguments.self_test else check(root)


if __name__ == "__main__":
    sys.exit(main())
