#!/usr/bin/env python3
"""Checks that dependencies between the targets of Sources/ and between the folders of each
target point one way. A lexical check (no compiler): fast, and blind where noted below.

What it checks, for every Swift target under Sources/ (macro targets and C targets are left out;
see SKIPPED_TARGETS):

1. Imports. A file may import only the modules its target declares in Package.swift (targets by
   name, products by name, and the `let x: Target.Dependency = .target(name:)` constants), the
   modules those re-export with `@_exported import`, and the toolchain's (TOOLCHAIN_MODULES).
   Anything else is a violation: it builds only because a dependency happens to bring it.

2. Layers inside a target. LAYERS below is the one place the allowed directions are written
   down (for StrataCore, the "Layout" section of StrataCore.docc's Development article shows the same
   order): per target, its folders, lowest layer first. A file may use what its own layer and
   the layers below declare, never what a layer above declares. Files directly in the target's
   folder are its composition root: they may use anything, and nothing in a folder may use them.
   A target without subfolders has only a root and passes. A folder that is in no layer is an
   error; a listed folder that does not exist (yet) is skipped.

   What counts as a use, outside comments and string literals (interpolations are code):
   - a type: an identifier equal to the name of a struct, class, enum, protocol, actor or
     typealias declared at the top level, or one level inside an `extension` (Connection.Limits is
     named `Limits` inside other extensions of Connection);
   - a member: `.name`, `.name(`, `.name {` or a bare call `name(`, where `name` is a func, var,
     let or enum case declared in a type's or an extension's body, or a func declared at the top
     level (a free function). A bare call of a name the file binds itself (a local, a parameter
     of function type, a closure's or a loop's variable) is that binding; `.name` of a tuple
     label the file declares is that label.
   Private and fileprivate declarations are seen only by their own file and are left out. Members
   that the composition root adds to the types below (Composition.swift's `checkpointGuards`) fill
   extension points those types declare: reading them is the design, and is not checked.
   Names are resolved in their own module only, and a name the using file declares is that one.
   When several folders declare a member, a call's first argument label keeps the overloads it
   fits. Then: if every folder left is at or below the user's layer the use is fine; if every one
   is above, it is a violation; if some are above and some not, the use is ambiguous: counted in
   the summary (listed with --ambiguous), not a violation. STOPLIST holds the few member names
   too common to mean anything; uses of them are not checked.

3. No loop inside a layer. Folders of one layer may use each other, but only one way: two (or
   more) folders of the same layer that use each other, directly or around a loop, are
   reported, with one use in each direction. Only uses resolved to one folder count.

EXCEPTIONS lists the violations that need a redesign rather than a move, each with its reason;
an exception that no longer occurs is reported as stale, so the list stays true.

What it cannot see (it reads text, not types): which type a member belongs to, so a member of
ours that shares its name with the standard library's (`filter`) or with a member in another
folder is in STOPLIST or ambiguous; types inferred without being named (`let x = f()`); members
reached by implicit `self` without a call (a property used inside an extension); initializers (an init declared in an extension
in a higher layer is seen only as its type's name, which is usually below); subscripts,
operators, global variables and conformances (`extension Connection: P` in a higher layer,
used through P below); code that macros generate; modules used without an import; and `#if`
branches, all of which are read as if compiled.

Usage: python3 .ci/layering.py [--graph] [--ambiguous]
  --graph      prints which folder uses which (types and members), per target
  --ambiguous  lists the ambiguous uses
Prints one summary line; exit status 1 when there are violations or stale exceptions.
"""

import os
import re
import sys
from collections import defaultdict

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SOURCES = os.path.join(REPO, "Sources")

# Per target: lowest layer first. Each entry is one layer: folders (relative to the target's
# folder) that may use each other one way. A folder's subfolders belong to it unless listed.
LAYERS = {
    # The kernel: no schema, no concurrency (the module graph keeps those above it).
    "StrataKernel": [
        # Locks, flags and boxes that any folder may use; they know nothing of SQLite.
        ["Support"],
        # A connection, its statements and the values they bind and read.
        ["Values", "Connection", "Statements"],
        ["Rows"],
        ["Transactions", "Hooks", "Functions", "Maintenance", "Extensions"],
        # Composing SQL: fragments and literals.
        ["Query"],
    ],
    # Tables: None, its folders are not layered (they use each other); the module graph keeps
    # the schema above the kernel and below the database layer.
    "StrataSchema": None,
    # The database layer, over the kernel and the schema (modules below it).
    "StrataCore": [
        # Sharing connections between threads and tasks.
        ["Concurrency"],
        # Capabilities built on the above. (Vector and full-text search, and the replication API,
        # are targets of their own. Replication here is the opener's guard for Litestream's VFS.)
        ["Observation", "Blobs", "VirtualTables", "Export", "Replication"],
        # Spellings that exist only for code ported from the seed libraries.
        ["Compatibility"],
    ],
    "StrataSync": [
        # The values every part of sync speaks: entries, cursors, policies, refusals.
        ["Model"],
        # Which tables sync and their schema versions.
        ["Schema"],
        # Capturing writes, the replica's outbox, the hub's log, and conflict resolution.
        ["Capture", "Outbox", "HubLog", "Conflicts"],
        # Moving entries between a replica and a hub.
        ["Transport"],
        # Where a hub keeps its spaces: the store protocol, the SQLite folder store, and the
        # pieces of the hub's logic every store uses (the log's chain, applying an entry).
        ["HubStore"],
        # Partial sync's rules over any store: identities, the rule language, views.
        ["Rules"],
        # The two ends.
        ["Replica", "Hub"],
    ],
}

# Targets under Sources/ that are not checked, with the reason.
SKIPPED_TARGETS = {
    "StrataRecordsMacros": "a compiler plugin (macro target): swift-syntax code, no layers of ours",
}

# Modules of the toolchain and of the platforms' SDKs, importable without a declared dependency.
TOOLCHAIN_MODULES = {
    "Swift", "_Concurrency", "Foundation", "FoundationEssentials", "FoundationNetworking",
    "FoundationXML", "Dispatch", "Synchronization", "Observation", "Darwin", "Glibc", "Musl",
    "Bionic", "Android", "WASILibc", "WinSDK", "ucrt", "os", "Combine", "CryptoKit",
    # The toolchain's test frameworks (StrataTesting reports to whichever runs the test).
    "Testing", "XCTest",
}

# Member names whose uses are not checked, as a use cannot say whose member it is:
# - names nearly every type declares, or witnesses of the standard library's protocols;
# - names the standard library, Foundation or Dispatch also declare on their own types, met in
#   these sources as uses of theirs (`array.filter`, `.success(`, `.nanoseconds(` of
#   DispatchTimeInterval, `Swift.type(of:)`, CodingKey's `stringValue`, NSNumber's `int64Value`, Progress's `resume()`,
#   Strideable's `distance(to:)`).
STOPLIST = {
    "description", "debugDescription", "hash", "hashValue", "encode", "makeIterator", "next",
    "callAsFunction", "run", "execute", "close", "reset", "count", "isEmpty", "value", "name",
    "rawValue", "init", "none", "some",
    "filter", "prefix", "joined", "remove", "values", "index", "key", "base", "type", "start",
    "read", "write", "open", "success", "failure", "plus", "nanoseconds", "stringValue",
    "int64Value", "distance", "data", "available", "resume", "schemaVersion",
}

# Violations that need a redesign rather than a move, each with its one-line reason. Keys:
#   (file relative to Sources/, name used)          a use of a higher layer, or an import
#   (folder, folder[, ...]) relative to Sources/    a loop between folders of one layer
EXCEPTIONS = {
    # StrataKernel: a call from the connection into a layer above it.
    ("StrataKernel/Connection/Connection.swift", "endTraceReports"):
        "Connection's deinit stops the trace callback (Hooks) before finalizing its statements",
    # StrataKernel: its second layer's folders use each other both ways.
    ("StrataKernel/Connection", "StrataKernel/Statements", "StrataKernel/Values"):
        "the kernel: a connection prepares and caches statements, statements run on their connection, "
        "values bind and read through statement handles",
}

DECL = re.compile(
    r"^(?P<indent>[ \t]*)(?P<mods>(?:@\w+(?:\([^)]*\))?\s+|(?:public|internal|package|private|fileprivate|"
    r"open|final|indirect|nonisolated|nonmutating|dynamic|static|unsafe)(?:\([^)]*\))?\s+)*)"
    r"(?P<kind>struct|class|enum|protocol|actor|typealias|extension)\s+"
    r"(?!(?:func|var|let|subscript|init|deinit|override|final|static|convenience|required)\b)"
    r"(?P<name>[A-Za-z_][A-Za-z0-9_.]*)",
    re.M,
)
# A header that opens a type's or an extension's body: its last declaration keyword, then no
# code (no `=` but `==`, no parenthesis) up to the brace.
TYPE_HEADER = re.compile(
    r"(?:^|[\s;}])(?:struct|class|enum|protocol|actor|extension)\s+"
    r"(?!(?:func|var|let|subscript|init|deinit|override|final|static|convenience|required)\b)"
    r"[A-Za-z_][\w.]*[^{}()]*$"
)
ASSIGN = re.compile(r"(?<![=!<>])=(?!=)")
MEMBER = re.compile(
    r"(?P<mods>(?:(?:@\w+(?:\([^)\n]*\))?|public|internal|package|private|fileprivate|open|final|"
    r"static|class|override|mutating|nonmutating|nonisolated|dynamic|lazy|weak|unowned|optional|"
    r"indirect|consuming|borrowing|isolated|distributed)(?:\([^)\n]*\))?\s+)*)"
    r"\b(?P<kind>func|var|let|case)\s+`?(?P<name>[A-Za-z_][A-Za-z0-9_]*)`?"
)
# The further names of a `case a, b(Int), c = 3` declaration.
MORE_CASES = re.compile(r"\s*(?:\([^)]*\))?\s*(?:=\s*[^,\n]+)?\s*,\s*`?([A-Za-z_][A-Za-z0-9_]*)`?")
USE = re.compile(r"(\.)?([A-Za-z_][A-Za-z0-9_]*)(\s*[({])?")
IMPORT = re.compile(
    r"^[ \t]*(?P<attrs>(?:@\w+\s+)*)(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(?P<module>[A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)
# An enum case declared with a type's name (`case Blob = "BLOB"`) names no type.
CASE_NAME = re.compile(r"\bcase\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?=[=,(]|$)")
PRIVATE = re.compile(r"\b(?:private|fileprivate)\b(?!\s*\(set\))")
# Names a file binds for itself, whatever their scope: declared, a parameter of function type
# (`open: () throws -> T`), or a closure's parameter (`{ resolve, other in`).
LOCAL_NAMES = re.compile(
    r"\b(?:let|var|func)\s+`?([A-Za-z_]\w*)|\b([A-Za-z_]\w*)\s*:\s*(?:@\w+\s+)*\([^()\n]*\)\s*(?:async\s+)?(?:throws\s+)?->"
    r"|\{\s*(?:\[[^\]]*\]\s*)?\(?((?:[A-Za-z_]\w*\s*,\s*)*[A-Za-z_]\w*)\)?\s+in\b"
    r"|\bfor\s+(?:case\s+)?(?:let\s+|var\s+)?\(?((?:[A-Za-z_]\w*\s*,\s*)*[A-Za-z_]\w*)\)?\s+in\b")
# Labels of tuple types (`-> (columns: [String], rows: [Row])`): `.rows` on such a tuple is no member.
TUPLE_TYPE = re.compile(r"(?:->|:)\s*\[?\(([^()\n]*:[^()\n]*)\)")
KEYWORDS = {"func", "var", "let", "case", "init", "subscript", "typealias", "associatedtype"}


def strip_code(text, keep_strings=False):
    """Returns the text with comments (and, unless keep_strings, string literal contents)
    blanked out, newlines kept so line numbers hold; the code inside interpolations is kept."""
    out = []
    i, n = 0, len(text)
    # Stack of open contexts: ("str", hashes, multiline) or ["interp", paren depth].
    stack = []
    string_start = re.compile(r'(#*)("""|")')

    def blank(s):
        return s if keep_strings else "".join("\n" if c == "\n" else " " for c in s)

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
            out.append(blank(text[i]))
            i += 1
            continue
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
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
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
            continue
        m = string_start.match(text, i) if c in '#"' else None
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
                    out.append(blank(")"))
                    i += 1
                    continue
        out.append(c)
        i += 1
    return "".join(out)


# MARK: - Package.swift

def balanced(text, start):
    """The index just past the bracket that closes the one at text[start]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for j in range(start, len(text)):
        ch = text[j]
        if ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
    return len(text)


def read_manifest():
    """Target name -> (kind, path or None, set of module names it depends on)."""
    with open(os.path.join(REPO, "Package.swift"), encoding="utf-8") as handle:
        text = strip_code(handle.read(), keep_strings=True)
    constants = {m.group(1): m.group(2) for m in re.finditer(
        r"\blet\s+(\w+)\s*:\s*Target\.Dependency\s*=\s*\.(?:target|byName|product)\(\s*name:\s*\"([^\"]+)\"", text)}
    targets = {}
    for m in re.finditer(r"\.(target|executableTarget|testTarget|macro|systemLibrary|binaryTarget|plugin)\(\s*name:\s*\"([^\"]+)\"", text):
        kind, name = m.group(1), m.group(2)
        body = text[m.end():balanced(text, text.index("(", m.start()))]
        path = re.search(r"\bpath:\s*\"([^\"]+)\"", body)
        deps = set()
        d = re.search(r"\bdependencies:\s*\[", body)
        if d:
            listing = body[d.end() - 1:balanced(body, d.end() - 1)]
            for call in re.finditer(r"\.(?:product|target|byName)\(\s*name:\s*\"([^\"]+)\"", listing):
                deps.add(call.group(1))
            # What is left once the calls are gone: names as strings, and constants.
            rest = listing
            for call in reversed(list(re.finditer(r"\.(?:product|target|byName)\(", listing))):
                rest = rest[:call.start()] + rest[balanced(rest, call.end() - 1):]
            deps.update(re.findall(r"\"([^\"]+)\"", rest))
            deps.update(constants[w] for w in re.findall(r"\b([A-Za-z_]\w*)\b", rest) if w in constants)
        targets[name] = (kind, path.group(1) if path else None, {dep.replace("-", "_") for dep in deps})
    return targets


# MARK: - Scanning a file

def first_label(code, end):
    """A func's first argument label as a call spells it ('' for no parameter, '_' for none),
    or '*' when a parameter has a default (calls may leave it out)."""
    opening = re.compile(r"\s*(?:<[^(){}]*>)?\s*\(").match(code, end)
    if not opening:
        return "*"
    params = code[opening.end():balanced(code, opening.end() - 1) - 1]
    if "=" in params.replace("==", ""):
        return "*"
    first = re.match(r"\s*([A-Za-z_]\w*)(?:\s+[A-Za-z_]\w*)?\s*:", params)
    return first.group(1) if first else ("" if not params.strip() else "*")


CALL_LABEL = re.compile(r"\s*(?:([A-Za-z_]\w*)\s*:(?!:)|(\)))?")


def scan(code):
    """The declarations of a stripped file: (types, members), each a list of (name, kind,
    line, private). Types: top level, or one level inside an extension. Members: funcs, vars,
    lets and cases in a type's or an extension's body, and funcs at the top level."""
    types = []
    top_kind = None
    for m in DECL.finditer(code):
        indent, kind, name = m.group("indent"), m.group("kind"), m.group("name")
        if not indent:
            top_kind = kind
        if kind == "extension" or "." in name:
            continue
        if indent and not (top_kind == "extension" and indent in ("    ", "\t")):
            continue
        private = bool(re.search(r"\b(private|fileprivate)\b", m.group("mods")))
        types.append((name, kind, code.count("\n", 0, m.start()) + 1, private))

    # Which scope each position is in: a stack of braces, each a type body or not.
    events = [(b.start(), b.group()) for b in re.finditer(r"[{};]", code)]
    members = []
    decls = list(MEMBER.finditer(code))
    stack, last, e = [], 0, 0
    for m in decls:
        while e < len(events) and events[e][0] < m.start():
            pos, ch = events[e]
            if ch == "{":
                header = code[last:pos]
                found = TYPE_HEADER.search(header)
                stack.append(bool(found) and not ASSIGN.search(header[found.start():]))
            elif ch == "}" and stack:
                stack.pop()
            last = pos + 1
            e += 1
        kind = m.group("kind")
        in_type = bool(stack) and stack[-1]
        at_top = not stack
        if not (in_type or (at_top and kind == "func")):
            continue
        private = bool(PRIVATE.search(m.group("mods")))
        line = code.count("\n", 0, m.start()) + 1
        members.append((m.group("name"), kind, line, private, first_label(code, m.end()) if kind == "func" else None))
        if kind == "case":
            pos = m.end()
            while True:
                more = MORE_CASES.match(code, pos)
                if not more:
                    break
                members.append((more.group(1), kind, line, private, None))
                pos = more.end()
    return types, members


# MARK: - Checking

def folder_of(rel, folders):
    """The deepest listed folder that holds the file; '' for files at the root; None if none."""
    parts = rel.split("/")[:-1]
    for k in range(len(parts), 0, -1):
        candidate = "/".join(parts[:k])
        if candidate in folders:
            return candidate
    return "" if not parts else None


def loops(graph, nodes):
    """Strongly connected components of two or more nodes (Tarjan's, iterative)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


BELOW = "(a module below)"


def check_target(target, files, out, below=frozenset()):
    """Checks one target's folders; files: rel (to the target) -> stripped code. Appends to
    out's lists and returns the target's folder graph."""
    if target in LAYERS and LAYERS[target] is None:
        return {}
    layers = LAYERS.get(target, [])
    level = {}
    for index, layer in enumerate(layers):
        for folder in layer:
            if folder in level:
                sys.exit(f"layering.py: {target}/{folder} is listed twice in LAYERS")
            level[folder] = index
    root = os.path.join(SOURCES, target)
    out["missing"].extend(f"{target}/{f}" for f in level if not os.path.isdir(os.path.join(root, f)))
    level[""] = len(layers)  # the composition root

    placed = {}
    for rel in files:
        folder = folder_of(rel, level)
        if folder is None:
            out["unplaced"].append(f"{target}/{rel}")
        else:
            placed[rel] = folder
    if all(folder == "" for folder in placed.values()):
        return {}

    # Name -> folders, per kind of use; and name -> files declaring it.
    types, members = defaultdict(set), defaultdict(set)
    labels = defaultdict(set)  # (member name, folder) -> first labels of its funcs (None: not a func)
    declared_in = defaultdict(set)
    scanned, local = {}, {}
    for rel, folder in placed.items():
        code = files[rel]
        file_types, file_members = scan(code)
        scanned[rel] = code
        bound = set()
        for m in LOCAL_NAMES.finditer(code):
            bound.update(n.strip() for group in m.groups() if group for n in group.split(","))
        for m in TUPLE_TYPE.finditer(code):
            bound.update(re.findall(r"([A-Za-z_]\w*)\s*:", m.group(1)))
        local[rel] = bound
        for name, kind, _, private in file_types:
            declared_in[("t", name)].add(rel)
            if not private:
                types[name].add(folder)
        for name, kind, _, private, label in file_members:
            declared_in[("m", name)].add(rel)
            # The composition root fills extension points with members of the types below
            # (`static let checkpointGuards` of Connection): reading them is the design.
            if not private and name not in STOPLIST and folder != "":
                members[name].add(folder)
                labels[(name, folder)].add(label)

    # A name the modules below also declare has a candidate below every folder.
    level[BELOW] = -1
    for table in (types, members):
        for name in below & table.keys():
            table[name].add(BELOW)
            labels[(name, BELOW)].add("*")
    graph = defaultdict(lambda: defaultdict(set))  # from folder -> to folder -> names

    def resolve(rel, folder, key, name, table, lineno, bare_ok=True, label=None):
        candidates = table.get(name)
        if candidates and label is not None and len(candidates) > 1:
            # Overloads in several folders: keep those whose first label fits the call's.
            fitting = {c for c in candidates
                       if labels[(name, c)] & {label, "*", None}}
            candidates = fitting or candidates
        if not candidates or rel in declared_in[(key, name)]:
            return
        if not bare_ok:
            return
        if candidates == {folder}:
            return
        mine = level[folder]
        above = {c for c in candidates if level[c] > mine}
        if len(candidates) == 1:
            target_folder = next(iter(candidates))
            graph[folder][target_folder].add((name, rel, lineno))
        if not above:
            return
        if above == candidates:
            path = f"{target}/{rel}"
            if (path, name) in EXCEPTIONS:
                out["used"].add((path, name))
            else:
                where = ", ".join(f"{c or '(root)'}/" for c in sorted(above))
                out["violations"].append(f"Sources/{path}:{lineno}: {name} from {target}/{where}")
        else:
            out["ambiguous"].append(
                f"Sources/{target}/{rel}:{lineno}: {name} is declared in "
                + ", ".join(f"{c or '(root)'}/" for c in sorted(candidates)))

    for rel, code in sorted(scanned.items()):
        folder = placed[rel]
        for lineno, line in enumerate(code.split("\n"), 1):
            line = CASE_NAME.sub("case", line)
            previous = None
            for m in USE.finditer(line):
                dot, name, call = m.group(1), m.group(2), m.group(3)
                if previous in KEYWORDS and not dot:  # a declaration, not a use
                    previous = name
                    continue
                previous = name
                if name in types and not dot:
                    resolve(rel, folder, "t", name, types, lineno)
                if name in members and (dot or (call and call.strip() == "(")):
                    # A bare call of a name the file binds itself is that binding.
                    label = None
                    if call and call.strip() == "(":
                        spelled = CALL_LABEL.match(line, m.end())
                        label = spelled.group(1) or ("" if spelled.group(2) else "_")
                    resolve(rel, folder, "m", name, members, lineno, bare_ok=name not in local[rel] or bool(dot and call),
                            label=label)

    # No loop inside a layer: only edges between two folders of one layer.
    for index in range(len(layers)):
        members = [f for f in layers[index] if f in level]
        same = {a: {b for b in graph.get(a, {}) if b in members and b != a} for a in members}
        for component in loops(same, members):
            key = tuple(f"{target}/{f}" for f in component)
            if key in EXCEPTIONS:
                out["used"].add(key)
                continue
            lines = []
            for a in component:
                for b in component:
                    if b in same.get(a, ()):
                        name, rel, lineno = sorted(graph[a][b])[0]
                        count = len(graph[a][b])
                        lines.append(f"    {a} -> {b}: {name} at Sources/{target}/{rel}:{lineno}"
                                     + (f" (and {count - 1} more)" if count > 1 else ""))
            out["violations"].append(f"Sources/{target}: a loop in layer {index} between "
                                     + ", ".join(f"{f}/" for f in component) + "\n" + "\n".join(lines))
    out["graphs"][target] = (graph, level)
    return graph


def main():
    args = sys.argv[1:]
    manifest = read_manifest()
    by_path = {}
    for name, (kind, path, _) in manifest.items():
        by_path[os.path.normpath(path or os.path.join("Sources" if kind not in ("testTarget",) else "Tests", name))] = name
    reexports = defaultdict(set)

    out = {"violations": [], "ambiguous": [], "used": set(), "unplaced": [], "missing": [], "graphs": {}}
    checked, file_count, sources = [], 0, {}
    for entry in sorted(os.listdir(SOURCES)):
        directory = os.path.join(SOURCES, entry)
        if not os.path.isdir(directory):
            continue
        target = by_path.get(os.path.join("Sources", entry))
        if target is None:
            out["violations"].append(f"Sources/{entry}: no target of Package.swift has this folder")
            continue
        kind = manifest[target][0]
        if target in SKIPPED_TARGETS or kind in ("macro", "systemLibrary", "binaryTarget", "plugin"):
            continue
        files = {}
        for dirpath, dirnames, filenames in os.walk(directory):
            dirnames[:] = sorted(d for d in dirnames if not d.endswith(".docc"))
            for name in sorted(filenames):
                if name.endswith(".swift"):
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8") as handle:
                        files[os.path.relpath(path, directory).replace(os.sep, "/")] = strip_code(handle.read())
        if not files:
            continue  # a C target
        sources[target] = (entry, files)
        for code in files.values():
            for m in IMPORT.finditer(code):
                if "@_exported" in m.group("attrs"):
                    reexports[target].add(m.group("module"))

    for target, (entry, files) in sorted(sources.items()):
        checked.append(target)
        file_count += len(files)
        declared = manifest[target][2]
        allowed = declared | TOOLCHAIN_MODULES | {target.replace("-", "_")}
        for dependency in declared:
            allowed |= reexports.get(dependency, set())
        for rel, code in sorted(files.items()):
            for m in IMPORT.finditer(code):
                module = m.group("module")
                if module in allowed:
                    continue
                path = f"{entry}/{rel}"
                if (path, module) in EXCEPTIONS:
                    out["used"].add((path, module))
                    continue
                lineno = code.count("\n", 0, m.start()) + 1
                out["violations"].append(
                    f"Sources/{path}:{lineno}: imports {module}, which {target} does not depend on in Package.swift")
        # Names the modules below declare: a use of one may be theirs, so it is not counted
        # against a folder of this target that also declares it.
        below = set()
        pending, seen = list(declared), set()
        while pending:
            dependency = pending.pop()
            if dependency in seen or dependency not in sources:
                continue
            seen.add(dependency)
            pending.extend(manifest[dependency][2])
            for code in sources[dependency][1].values():
                file_types, file_members = scan(code)
                below.update(name for name, _, _, private, *_ in file_types + file_members if not private)
        check_target(entry, files, out, below)

    for rel in out["unplaced"]:
        out["violations"].append(f"Sources/{rel}: its folder is in no layer of LAYERS (add it to a layer of its target)")

    if "--graph" in args:
        for target, (graph, level) in sorted(out["graphs"].items()):
            if not graph:
                continue
            print(f"{target}: which folder uses which")
            for source in sorted(graph, key=lambda f: (level[f], f)):
                for dest in sorted(graph[source], key=lambda f: (level[f], f)):
                    arrow = "->" if level[dest] <= level[source] else "!!"
                    names = sorted({name for name, _, _ in graph[source][dest]})
                    print(f"  {source or '(root)'} {arrow} {dest or '(root)'}: {', '.join(names)}")
    if "--ambiguous" in args:
        for line in out["ambiguous"]:
            print(f"layering: ambiguous: {line}")

    stale = sorted(set(EXCEPTIONS) - out["used"])
    for key in stale:
        print(f"layering: stale exception {key}: it no longer occurs; remove it from EXCEPTIONS")
    for line in out["violations"]:
        print(line)
    print(f"layering: {len(checked)} targets, {file_count} files; {len(out['violations'])} violation(s), "
          f"{len(out['used'])} listed exception(s), {len(stale)} stale; "
          f"{len(out['ambiguous'])} ambiguous use(s) not checked (--ambiguous lists them)"
          + (f"; not yet created: {', '.join(out['missing'])}" if out["missing"] else ""))
    return 1 if out["violations"] or stale else 0


if __name__ == "__main__":
    sys.exit(main())
