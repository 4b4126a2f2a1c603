#!/usr/bin/env python3
"""Checks what the compiler does not (Package.swift's module graph keeps StrataKernel, StrataSchema and StrataCore
apart), in each Swift target under Sources/ but SKIPPED_TARGETS. It fails on
1. an import of a module that the target does not declare in Package.swift, that no declared module re-exports
   (`@_exported import`) and that is not one of TOOLCHAIN_MODULES;
2. in a target of LAYERS: a folder in no layer; a use of what only layers above declare in the module, a type (by name)
   or a member (`.name`, `name(`: funcs, vars, lets and cases of types, free funcs). Not counted: private names,
   STOPLIST, names the file declares or binds or the modules below declare, members the composition root (root files,
   which may use anything) adds. A name declared above and at or below is ambiguous: counted, not failed (--ambiguous);
3. folders of one layer that use each other around a loop; EXCEPTIONS that no longer occur. Exit status 1 on failure.
Reading text, it cannot see whose member a name is, overloads, inferred types, implicit `self` without a call,
initializers, subscripts, operators, globals, conformances, macros' code, imports left implicit; it reads all `#if`s."""
import functools, os, re, sys
from collections import defaultdict
REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SOURCES = os.path.join(REPO, "Sources")

# Per target: lowest layer first. Each entry is one layer: folders (relative to the target's folder) that may use each
# other one way. A folder's subfolders belong to it unless listed.
LAYERS = {
    "StrataKernel": [  # The kernel: no schema, no concurrency (the module graph keeps those above it).
        ["Support"],  # Locks, flags and boxes that any folder may use; they know nothing of SQLite.
        ["Values", "Connection", "Statements"],  # A connection, its statements and the values they bind and read.
        ["Rows"],
        ["Transactions", "Hooks", "Functions", "Maintenance", "Extensions"],
        ["Query"]],  # Composing SQL: fragments and literals.
    # Tables: None, its folders are not layered (they use each other); the module graph keeps the schema above the
    # kernel and below the database layer.
    "StrataSchema": None,
    "StrataCore": [  # The database layer, over the kernel and the schema (modules below it).
        ["Concurrency"],  # Sharing connections between threads and tasks.
        # Capabilities built on the above. (Vector and full-text search, and the replication API, are targets of their
        # own. Replication here is the opener's guard for Litestream's VFS.)
        ["Observation", "Blobs", "VirtualTables", "Export", "Replication"],
        ["Compatibility"]],  # Spellings that exist only for code ported from the seed libraries.
    "StrataSync": [
        ["Model"],  # The values every part of sync speaks: entries, cursors, policies, refusals.
        ["Schema"],  # Which tables sync and their schema versions.
        ["Capture", "Outbox", "HubLog", "Conflicts"],  # Capturing writes, the replica's outbox, the hub's log, conflicts.
        ["Transport"],  # Moving entries between a replica and a hub.
        # Where a hub keeps its spaces: the store protocol, the SQLite folder store, and the pieces of the hub's logic
        # every store uses (the log's chain, applying an entry).
        ["HubStore"],
        ["Rules"],  # Partial sync's rules over any store: identities, the rule language, views.
        ["Replica", "Hub"]],  # The two ends.
}
# Targets under Sources/ that are not checked, with the reason.
SKIPPED_TARGETS = {"StrataRecordsMacros": "a compiler plugin (macro target): swift-syntax code, no layers of ours"}
# Modules of the toolchain, the platforms' SDKs and the test frameworks, importable without a declared dependency.
TOOLCHAIN_MODULES = {"Swift", "_Concurrency", "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML",
                     "Dispatch", "Synchronization", "Observation", "Darwin", "Glibc", "Musl", "Bionic", "Android",
                     "WASILibc", "WinSDK", "ucrt", "os", "Combine", "CryptoKit", "Testing", "XCTest"}
# Member names whose uses are not checked, as a use cannot say whose member it is: names nearly every type declares, and
# names the standard library, Foundation or Dispatch declare too (`array.filter`, `.success(`, `distance(to:)`).
STOPLIST = {"description", "debugDescription", "hash", "hashValue", "encode", "makeIterator", "next", "callAsFunction",
            "run", "execute", "close", "reset", "count", "isEmpty", "value", "name", "rawValue", "init", "none", "some",
            "filter", "prefix", "joined", "remove", "values", "index", "key", "base", "type", "start", "read", "write",
            "open", "success", "failure", "plus", "nanoseconds", "stringValue", "int64Value", "distance", "data",
            "available", "resume", "schemaVersion"}
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

MODS = (r"(?:(?:@\w+|public|internal|package|private|fileprivate|open|final|static|class|override|mutating|nonmutating|nonisolated"
        r"|dynamic|lazy|weak|unowned|optional|indirect|consuming|borrowing|isolated|distributed|unsafe)(?:\([^)\n]*\))?\s+)*")
NAME = r"(?!(?:func|var|let|subscript|init|deinit|override|final|static|convenience|required)\b)[A-Za-z_][\w.]*"
# What opens a type's or an extension's body: its keyword and name, then no code (no `=` but `==`, no parenthesis).
TYPE_BODY = re.compile(rf"(?<![^\s;{{}}])(struct|class|enum|protocol|actor|extension)\s+({NAME})[^{{}}()]*$")
ASSIGN = re.compile(r"(?<![=!<>])=(?!=)")
DECLARATION = re.compile(rf"[{{}};]|({MODS})\b(func|var|let|case|typealias)\s+`?([A-Za-z_]\w*)`?")  # or a brace, a `;`
MORE_CASES = re.compile(r"\s*(?:\([^)]*\))?\s*(?:=\s*[^,\n]+)?\s*,\s*`?([A-Za-z_]\w*)`?")  # `case a, b(Int), c = 3`
PRIVATE, USE = re.compile(r"\b(?:private|fileprivate)\b(?!\s*\(set\))"), re.compile(r"(\.)?([A-Za-z_]\w*)(\s*[({])?")
IMPORT = re.compile(r"^[ \t]*((?:@\w+\s+)*)(?:\w+\s+)?import\s+(?:[a-z]+\s+(?=\w+\.))?(\w+)", re.M)  # `import struct A.B`
# Names a file binds: declared, a parameter of function type (`open: () throws -> T`), a closure's or a loop's.
BOUND = re.compile(r"\b(?:let|var|func)\s+`?([A-Za-z_]\w*)|\b([A-Za-z_]\w*)\s*:\s*(?:@\w+\s+)*\([^()\n]*\)\s*(?:async\s+)?(?:throws\s+)?->"
                   r"|(?:\{\s*(?:\[[^\]]*\]\s*)?|\bfor\s+(?:case\s+)?(?:let\s+|var\s+)?)"
                   r"\(?((?:[A-Za-z_]\w*\s*,\s*)*[A-Za-z_]\w*)\)?\s+in\b")
TUPLE_TYPE = re.compile(r"(?:->|:)\s*\[?\(([^()\n]*:[^()\n]*)\)")  # `-> (columns: [String], rows: [Row])`: labels
NESTED = functools.reduce(lambda inner, _: rf"(?:[^()]|\({inner}\))*", range(4), "[^()]*")  # 4 levels of parentheses
LITERAL = re.compile(rf'//[^\n]*|/\*(?:/\*.*?\*/|.)*?\*/|(#*)("""|")(?:\\\1\({NESTED}\)|\\\1[^(]|\\(?!\1)|[^\\])*?\2\1', re.S)
blank = functools.partial(re.compile(r"[^\n]").sub, " ")

def strip(text, keep=False):
    """The text with comments (and string literals unless keep) blanked, keeping newlines and interpolations' code."""
    def literal(m):  # a comment; or a string literal, blanked but for the code of its interpolations
        if not m[2] or keep: return m[0] if m[2] else blank(m[0])
        return re.sub(rf"(\\{m[1]}\()({NESTED})\)|\\{m[1]}.|.", lambda p: blank(p[1]) + strip(p[2]) + " " if p[1] else blank(p[0]),
                      m[0], flags=re.S)
    return LITERAL.sub(literal, text)

def manifest():  # Package.swift's targets: name -> (kind, folder, names of the modules it depends on)
    text, targets = strip(open(os.path.join(REPO, "Package.swift"), encoding="utf-8").read(), keep=True), {}
    consts = dict(re.findall(r'\blet\s+(\w+)\s*:\s*Target\.Dependency\s*=\s*\.\w+\(\s*name:\s*"([^"]+)"', text))
    for kind, name, body in re.findall(r'\.(target|executableTarget|testTarget|macro|systemLibrary|binaryTarget|plugin)'
                                       rf'\(\s*name:\s*"([^"]+)"({NESTED})\)', text):
        deps = re.search(r"\bdependencies:\s*\[((?:[^\[\]]|\[[^\[\]]*\])*)\]", body)
        deps = re.sub(r'package:\s*"[^"]*"|\.when\([^)]*\)', "", deps[1] if deps else "")  # no packages, conditions
        deps = re.findall(r'"([^"]+)"', deps) + [consts[word] for word in re.findall(r"\w+", deps) if word in consts]
        path = re.search(r'\bpath:\s*"([^"]+)"', body)
        folder = path[1] if path else os.path.join("Tests" if kind == "testTarget" else "Sources", name)
        targets[name] = (kind, os.path.normpath(folder), {dep.replace("-", "_") for dep in deps})
    return targets

@functools.lru_cache(None)
def scan(code):
    # A stripped file's {"t": types (top level, one level in an extension), "m": members, free funcs}: [(name, private)]
    found, stack, last = {"t": [], "m": []}, [], 0  # stack: the scopes braces open, each a type's kind or None
    for m in DECLARATION.finditer(code):
        if m[0] == "{":
            kind = (h := TYPE_BODY.search(code, last, m.start())) and not ASSIGN.search(code, h.start(), m.start()) and h[1]
            if kind and kind != "extension" and stack in ([], ["extension"]):
                found["t"].append((h[2], bool(PRIVATE.search(code, code.rfind("\n", 0, h.start()) + 1, h.start()))))
            stack.append(kind)
        elif m[0] == "}" and stack: stack.pop()
        if not m[2]: last = m.end()
        elif m[2] == "typealias" and stack in ([], ["extension"]): found["t"].append((m[3], bool(PRIVATE.search(m[1]))))
        elif m[2] != "typealias" and (stack and stack[-1] or not stack and m[2] == "func"):
            names, pos = [m[3]], m.end()
            while m[2] == "case" and (more := MORE_CASES.match(code, pos)): names.append(more[1]); pos = more.end()
            found["m"] += [(name, bool(PRIVATE.search(m[1]))) for name in names]
    return found

def main():
    packages, sources, reexports, out = manifest(), {}, defaultdict(set), defaultdict(list, used=set())
    owners = {folder: name for name, (_, folder, _) in packages.items()}
    excepted = lambda *key: key in EXCEPTIONS and not out["used"].add(key)  # noting that the exception still occurs
    for entry in sorted(e for e in os.listdir(SOURCES) if os.path.isdir(os.path.join(SOURCES, e))):
        target, root = owners.get(os.path.join("Sources", entry)), os.path.join(SOURCES, entry)
        if target is None: out["violations"].append(f"Sources/{entry}: no target of Package.swift has this folder")
        if target is None or target in SKIPPED_TARGETS: continue
        paths = [os.path.join(d, n) for d, _, names in os.walk(root) if ".docc" not in d[len(root):] for n in names if n.endswith(".swift")]
        files = {os.path.relpath(p, root).replace(os.sep, "/"): strip(open(p, encoding="utf-8").read()) for p in paths}
        sources.update({target: (entry, files)} if files else {})  # no Swift files: a C target
        reexports[target] = {m[2] for code in files.values() for m in IMPORT.finditer(code) if "@_exported" in m[1]}
    below = functools.lru_cache(None)(lambda target: {n for d in packages[target][2] if d in sources for n in below(d) | {
        name for code in sources[d][1].values() for decls in scan(code).values() for name, private in decls if not private}})
    for target, (entry, files) in sorted(sources.items()):
        deps = packages[target][2]
        allowed = deps | TOOLCHAIN_MODULES | {target.replace("-", "_")} | {module for d in deps for module in reexports[d]}
        out["violations"] += [f"Sources/{entry}/{rel}:{code.count(chr(10), 0, m.start()) + 1}: imports {m[2]}, which {target} "
                              "does not depend on in Package.swift" for rel, code in sorted(files.items()) for m in IMPORT.finditer(code)
                              if m[2] not in allowed and not excepted(f"{entry}/{rel}", m[2])]
        if (layers := LAYERS.get(entry, [])) is None: continue
        level = {folder: index for index, layer in enumerate(layers) for folder in layer} | {"": len(layers)}  # "": root
        placed = {rel: max((f for f in level if f and rel.startswith(f + "/")), key=len, default="") for rel in sorted(files)
                  if "/" not in rel or any(f and rel.startswith(f + "/") for f in level)}  # the deepest listed folder
        out["violations"] += [f"Sources/{entry}/{rel}: its folder is in no layer of LAYERS (add it to a layer of its target)"
                              for rel in sorted(files) if rel not in placed]
        tables, declared_in, graph = defaultdict(set), defaultdict(set), defaultdict(lambda: defaultdict(set))
        for rel, key, name, private in ((rel, key, *d) for rel in placed for key, ds in scan(files[rel]).items() for d in ds):
            declared_in[name].add(rel)
            if not private and name not in below(target) and (key == "t" or name not in STOPLIST and placed[rel]):
                tables[key, name].add(placed[rel])  # members the root adds fill extension points: not counted
        def resolve(rel, folder, key, name, lineno):
            found = tables[key, name]
            if rel in declared_in[name] or found == {folder}: return  # a name the file declares is its own
            above, where = {f for f in found if level[f] > level[folder]}, ", ".join(f"{f or '(root)'}/" for f in sorted(found))
            if len(found) == 1: graph[folder][min(found)].add((name, rel, lineno))
            if above and above != found: out["ambiguous"].append(f"Sources/{entry}/{rel}:{lineno}: {name} is declared in {where}")
            elif above and not excepted(f"{entry}/{rel}", name):
                out["violations"].append(f"Sources/{entry}/{rel}:{lineno}: {name} from {entry}/{where}")
        for rel, folder in placed.items():
            bound = {n.strip() for m in BOUND.finditer(files[rel]) for g in m.groups() if g for n in g.split(",")}
            bound |= {n for m in TUPLE_TYPE.finditer(files[rel]) for n in re.findall(r"([A-Za-z_]\w*)\s*:", m[1])}
            for lineno, line in enumerate(files[rel].split("\n"), 1):
                for dot, name, call in USE.findall(line):
                    if ("t", name) in tables and not dot: resolve(rel, folder, "t", name, lineno)
                    # A member: `.name`, `.name(`, `.name {`, or `name(` unless the file binds the name itself.
                    if ("m", name) in tables and (dot or call.strip() == "(") and (name not in bound or dot and call):
                        resolve(rel, folder, "m", name, lineno)
        for index, layer in enumerate(layers):  # no loop inside a layer: folders that reach each other
            direct = {a: {b for b in graph.get(a, ()) if b in layer and b != a} for a in layer}
            reach = {a: set(bs) for a, bs in direct.items()}
            for k, a in [(k, a) for k in layer for a in layer]: reach[a] |= reach[k] if k in reach[a] else set()  # Warshall
            for loop in sorted({tuple(sorted({a} | {b for b in reach[a] if a in reach[b]})) for a in layer}):
                if len(loop) > 1 and not excepted(*(f"{entry}/{f}" for f in loop)):
                    uses = {(a, b): sorted(graph[a][b]) for a in loop for b in loop if b in direct[a]}
                    out["violations"].append(f"Sources/{entry}: a loop in layer {index} between " + ", ".join(f"{f}/" for f in loop)
                                             + "".join(f"\n    {a} -> {b}: {u[0][0]} at Sources/{entry}/{u[0][1]}:{u[0][2]}"
                                                       + (f" (and {len(u) - 1} more)" if len(u) > 1 else "") for (a, b), u in uses.items()))
    stale = sorted(set(EXCEPTIONS) - out["used"])
    print(*[f"layering: ambiguous: {line}" for line in out["ambiguous"] if "--ambiguous" in sys.argv],
          *[f"layering: stale exception {key}: it no longer occurs; remove it from EXCEPTIONS" for key in stale], *out["violations"],
          f"layering: {len(sources)} targets, {sum(len(files) for _, files in sources.values())} files; {len(out['violations'])} "
          f"violation(s), {len(out['used'])} listed exception(s), {len(stale)} stale; {len(out['ambiguous'])} ambiguous use(s) "
          "not checked (--ambiguous lists them)", sep="\n")
    return 1 if out["violations"] or stale else 0

if __name__ == "__main__":
    sys.exit(main())
