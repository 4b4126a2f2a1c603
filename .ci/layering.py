#!/usr/bin/env python3
"""Checks that dependencies between the folders of Sources/Strata point one way.

LAYERS below is the one place the allowed directions are written down (README's "Layout"
shows the same order). A file may name the types of its own layer and of every layer below
it, never a type declared in a layer above it. Folders in one layer may name each other.

What counts as naming a type: an identifier token, outside comments and string literals
(interpolations are code and are checked), equal to the name of a struct, class, enum,
protocol, actor or typealias declared in another folder. Private and fileprivate types are
not visible to other files and are left out. A name declared in two folders is ambiguous: it
is reported as a warning and not checked. Files directly in Sources/Strata (Strata.swift) are
the module's composition root: they may name anything, and nothing below may name them.

Usage: python3 .ci/layering.py [--graph]   (--graph prints which folder names which)
Exit status 1 lists each violation as file:line: Type from Folder.
"""

import os
import re
import sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "Strata")

# Lowest first. Each entry is one layer: folders (relative to Sources/Strata) that may name
# each other's types. A folder's subfolders belong to it unless listed on their own.
LAYERS = [
    # Locks, flags and boxes that any folder may use; they know nothing of SQLite.
    ["Support"],
    # The kernel: a connection, its statements and the values they bind and read.
    ["Values", "Connection", "Statements"],
    ["Rows"],
    ["Transactions", "Hooks", "Functions", "Maintenance"],
    # Composing SQL: fragments and literals.
    ["Query"],
    # Tables: the one table definition, introspection, the DSL, the rebuild, both migrators.
    ["Schema"],
    # Sharing connections between threads and tasks.
    ["Concurrency"],
    # Capabilities built on the above.
    ["Observation", "Blobs", "Changesets", "Extensions", "VirtualTables", "Search", "Export",
     "Replication"],
    # Spellings that exist only for code ported from the seed libraries.
    ["Compatibility"],
]

# Violations that need a redesign rather than a move, each with its reason. A pair here is
# not reported; a pair that no longer occurs is reported as stale so the list stays true.
# (file relative to Sources/Strata, type name): reason
EXCEPTIONS = {
}

DECL = re.compile(
    r"^(?P<indent>[ \t]*)(?P<mods>(?:@\w+(?:\([^)]*\))?\s+|(?:public|internal|package|private|fileprivate|"
    r"open|final|indirect|nonisolated|nonmutating|dynamic|static|unsafe)(?:\([^)]*\))?\s+)*)"
    r"(?P<kind>struct|class|enum|protocol|actor|typealias|extension)\s+"
    r"(?!(?:func|var|let|subscript|init|deinit|override|final|static|convenience|required)\b)"
    r"(?P<name>[A-Za-z_][A-Za-z0-9_.]*)",
    re.M,
)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# An enum case declared with a type's name (`case Blob = "BLOB"`) names no type.
CASE_NAME = re.compile(r"\bcase\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?=[=,(]|$)")


def strip_code(text):
    """Returns the text with comments and string literal contents blanked out (newlines kept,
    so line numbers hold); the code inside string interpolations is kept."""
    out = []
    i, n = 0, len(text)
    # Stack of open contexts: ("str", hashes, multiline) or ("interp", paren depth).
    stack = []

    def blank(s):
        return "".join("\n" if c == "\n" else " " for c in s)

    while i < n:
        top = stack[-1] if stack else None
        if top is not None and top[0] == "str":
            _, hashes, multi = top
            quote = '"""' if multi else '"'
            closing = quote + "#" * hashes
            if text.startswith(closing, i):
                stack.pop()
                out.append(blank(closing))
                i += len(closing)
                continue
            escape = "\\" + "#" * hashes
            if text.startswith(escape, i):
                j = i + len(escape)
                if j < n and text[j] == "(":
                    stack.append(["interp", 1])
                    out.append(blank(text[i:j + 1]))
                    i = j + 1
                    continue
                out.append(blank(text[i:j + 1]))
                i = j + 1
                continue
            out.append("\n" if text[i] == "\n" else " ")
            i += 1
            continue
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
            continue
        if text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth += 1
                    j += 2
                elif text.startswith("*/", j):
                    depth -= 1
                    j += 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
            continue
        m = re.compile(r'(#*)("""|")').match(text, i) if c in '#"' else None
        if m and (c == '"' or m.group(1)):
            hashes = len(m.group(1))
            stack.append(("str", hashes, m.group(2) == '"""'))
            out.append(blank(m.group(0)))
            i = m.end()
            continue
        if top is not None and top[0] == "interp":
            if c == "(":
                top[1] += 1
            elif c == ")":
                top[1] -= 1
                if top[1] == 0:
                    stack.pop()
                    out.append(" ")
                    i += 1
                    continue
        out.append(c)
        i += 1
    return "".join(out)


def folder_of(rel, folders):
    """The deepest listed folder that holds the file; '' for files at the root."""
    parts = rel.split(os.sep)[:-1]
    for k in range(len(parts), 0, -1):
        candidate = "/".join(parts[:k])
        if candidate in folders:
            return candidate
    return "" if not parts else None


def main():
    graph = "--graph" in sys.argv[1:]
    level = {}
    for index, layer in enumerate(LAYERS):
        for folder in layer:
            if folder in level:
                sys.exit(f"layering.py: {folder} is listed twice in LAYERS")
            level[folder] = index
    level[""] = len(LAYERS)  # the composition root

    files = {}
    unplaced = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = sorted(d for d in dirnames if not d.endswith(".docc"))
        for name in sorted(filenames):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, ROOT)
            folder = folder_of(rel, level)
            if folder is None:
                unplaced.append(rel)
                continue
            with open(path, encoding="utf-8") as handle:
                files[rel] = (folder, strip_code(handle.read()))
    for folder in level:
        if folder and not os.path.isdir(os.path.join(ROOT, folder)):
            unplaced.append(f"{folder}/ (listed in LAYERS, missing)")
    if unplaced:
        print("layering: not in any layer of LAYERS (add the folder to a layer):")
        for rel in unplaced:
            print(f"  Sources/Strata/{rel}")
        return 1

    # Type name -> folders. Top-level types count, and types nested one level in an
    # `extension X` (such as Connection.Limits, which code names as `Limits` inside other
    # extensions of X); types nested in a type's own body are its internals, named through it.
    declared = defaultdict(set)
    for rel, (folder, code) in files.items():
        top_kind = None
        for m in DECL.finditer(code):
            indent, kind, name = m.group("indent"), m.group("kind"), m.group("name")
            if not indent:
                top_kind = kind
            if kind == "extension" or "." in name:
                continue
            if re.search(r"\b(private|fileprivate)\b", m.group("mods")):
                continue
            if indent and not (top_kind == "extension" and indent in ("    ", "\t")):
                continue
            declared[name].add(folder)
    ambiguous = {name: folders for name, folders in declared.items() if len(folders) > 1}
    owner = {name: next(iter(folders)) for name, folders in declared.items() if len(folders) == 1}

    violations = []
    used_exceptions = set()
    edges = defaultdict(set)  # (from folder, to folder) -> type names
    for rel, (folder, code) in sorted(files.items()):
        for lineno, line in enumerate(code.split("\n"), 1):
            line = CASE_NAME.sub("case", line)
            for token in IDENT.findall(line):
                target = owner.get(token)
                if target is None or target == folder:
                    continue
                edges[(folder, target)].add(token)
                if level[target] > level[folder]:
                    if (rel, token) in EXCEPTIONS:
                        used_exceptions.add((rel, token))
                        continue
                    violations.append((rel, lineno, token, target))

    if graph:
        print("Which folder names which (types):")
        for (source, target), names in sorted(edges.items(), key=lambda e: (level[e[0][0]], e[0], level[e[0][1]])):
            arrow = "->" if level[target] <= level[source] else "!!"
            print(f"  {source or '(root)'} {arrow} {target or '(root)'}: {', '.join(sorted(names))}")

    for name, folders in sorted(ambiguous.items()):
        print(f"layering: warning: {name} is declared in {', '.join(sorted(folders))} (not checked)")
    stale = sorted(set(EXCEPTIONS) - used_exceptions)
    for rel, token in stale:
        print(f"layering: stale exception: Sources/Strata/{rel} no longer names {token}; remove it from EXCEPTIONS")

    if violations:
        print(f"layering: {len(violations)} reference(s) to a higher layer (see LAYERS in .ci/layering.py):")
        for rel, lineno, token, target in violations:
            print(f"Sources/Strata/{rel}:{lineno}: {token} from {target or '(root)'}/")
        return 1
    if stale:
        return 1
    print(f"layering: {len(files)} files in {len(level) - 1} folders over {len(LAYERS)} layers, "
          f"{len(owner)} types; no folder names a type of a higher layer"
          + (f" ({len(used_exceptions)} listed exception(s))" if used_exceptions else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
