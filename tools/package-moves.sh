#!/usr/bin/env bash
# Rewrites references to the types and packages that decision 0045 moved (outbox-drain's packages say what
# they hold). Re-runnable and idempotent: run it from anywhere in the repository after merging a branch that
# was written against the old names; a second run changes nothing.
#
# What it does, over every tracked *.java, *.md and resources file (META-INF/services included):
#   1. rewrites old fully-qualified names (and their source paths, dev/leasebox/...) to the new ones,
#      specific types before whole packages;
#   2. rewrites Leasebox.Granularity (a nested enum before) to dev.leasebox.claim.Granularity: the simple
#      name plus an import, or the full name where the file already sees another Granularity;
#   3. in Java files of a package that lost or gained types (dev.leasebox.jdbc and its sub-packages,
#      dev.leasebox.drain, dev.leasebox.provider, dev.leasebox.claim and its sub-packages), adds the imports
#      that same-package references now need, drops imports of the file's own package, and sets the package
#      line of files under src/*/java/dev/leasebox from their directory.
#
# What it cannot do (do it by hand, the compiler tells):
#   - move files: a new file written in an old package (e.g. dev/leasebox/jdbc/SomethingNew.java that belongs
#     with the dialects) stays where it is; `git mv` it, then run this script again;
#   - widen access: a type or member that was package-private and is now used from another package (a new
#     call from dev.leasebox.jdbc into dev.leasebox.jdbc.store, say) must be made public by hand;
#   - imports in Markdown code blocks: a snippet that used Leasebox.Granularity needs
#     `import dev.leasebox.claim.Granularity;` (DocSnippetsTest in leasebox-cli compiles them);
#   - wildcard imports (import dev.leasebox.jdbc.*;) of a package whose types moved: none exist today;
#   - prose that names a package without its dev.leasebox prefix ("the outbox.leased package").
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

# old name -> new name; specific types first, whole packages last (order matters: sed applies them in turn).
MOVES=$(cat <<'EOF'
dev.leasebox.outbox.leased.ClaimMode dev.leasebox.claim.ClaimMode
dev.leasebox.outbox.leased.ReleaseAfterCompletion dev.leasebox.claim.ReleaseAfterCompletion
dev.leasebox.outbox.grouped.LeaseGrouping dev.leasebox.claim.LeaseGrouping
dev.leasebox.Leasebox.Granularity dev.leasebox.claim.Granularity
dev.leasebox.drain.OutboxProvider dev.leasebox.provider.OutboxProvider
dev.leasebox.drain.ProviderOutcome dev.leasebox.provider.ProviderOutcome
dev.leasebox.drain.ErrorClassifier dev.leasebox.provider.ErrorClassifier
dev.leasebox.drain.Envelope dev.leasebox.provider.Envelope
dev.leasebox.jdbc.SqlDialect dev.leasebox.jdbc.dialect.SqlDialect
dev.leasebox.jdbc.H2Dialect dev.leasebox.jdbc.dialect.H2Dialect
dev.leasebox.jdbc.MariaDbDialect dev.leasebox.jdbc.dialect.MariaDbDialect
dev.leasebox.jdbc.PostgreSqlDialect dev.leasebox.jdbc.dialect.PostgreSqlDialect
dev.leasebox.jdbc.SlotStatements dev.leasebox.jdbc.dialect.SlotStatements
dev.leasebox.jdbc.MariaDbSlotStatements dev.leasebox.jdbc.dialect.MariaDbSlotStatements
dev.leasebox.jdbc.PostgreSqlSlotStatements dev.leasebox.jdbc.dialect.PostgreSqlSlotStatements
dev.leasebox.jdbc.MariaDbTransactions dev.leasebox.jdbc.dialect.MariaDbTransactions
dev.leasebox.jdbc.PgArrays dev.leasebox.jdbc.dialect.PgArrays
dev.leasebox.jdbc.QueueScan dev.leasebox.jdbc.dialect.QueueScan
dev.leasebox.jdbc.EntryRows dev.leasebox.jdbc.dialect.EntryRows
dev.leasebox.jdbc.HeadersJson dev.leasebox.jdbc.dialect.HeadersJson
dev.leasebox.jdbc.CompletionWrite dev.leasebox.jdbc.dialect.CompletionWrite
dev.leasebox.jdbc.JdbcOutboxStore dev.leasebox.jdbc.store.JdbcOutboxStore
dev.leasebox.jdbc.CandidateSample dev.leasebox.jdbc.store.CandidateSample
dev.leasebox.jdbc.ClaimCandidates dev.leasebox.jdbc.store.ClaimCandidates
dev.leasebox.jdbc.ClaimRecorder dev.leasebox.jdbc.store.ClaimRecorder
dev.leasebox.jdbc.CompletionOutcomes dev.leasebox.jdbc.store.CompletionOutcomes
dev.leasebox.jdbc.LapsedCandidates dev.leasebox.jdbc.store.LapsedCandidates
dev.leasebox.jdbc.OutboxConnections dev.leasebox.jdbc.store.OutboxConnections
dev.leasebox.jdbc.QueueHead dev.leasebox.jdbc.store.QueueHead
dev.leasebox.jdbc.SchemaCheck dev.leasebox.jdbc.store.SchemaCheck
dev.leasebox.jdbc.PostgreSqlCommitListener dev.leasebox.jdbc.store.PostgreSqlCommitListener
dev.leasebox.jdbc.JdbcLeaseManager dev.leasebox.jdbc.lease.JdbcLeaseManager
dev.leasebox.jdbc.LeaseTable dev.leasebox.jdbc.lease.LeaseTable
dev.leasebox.jdbc.LeaseTableAccess dev.leasebox.jdbc.lease.LeaseTableAccess
dev.leasebox.jdbc.MariaDbLeaseTable dev.leasebox.jdbc.lease.MariaDbLeaseTable
dev.leasebox.jdbc.JdbcSlotStore dev.leasebox.jdbc.lease.JdbcSlotStore
dev.leasebox.jdbc.JdbcWorkerGroup dev.leasebox.jdbc.lease.JdbcWorkerGroup
dev.leasebox.jdbc.ClaimStyleRegistry dev.leasebox.jdbc.lease.ClaimStyleRegistry
dev.leasebox.outbox.leased dev.leasebox.claim.leased
dev.leasebox.outbox.partition dev.leasebox.claim.partition
dev.leasebox.outbox.grouped dev.leasebox.claim.grouped
EOF
)

# The decision record names the old packages on purpose.
RECORD=docs/decisions/0045-packages-that-say-what-they-hold.md

# Tracked text files that can name a Java type: sources, docs, and resources (service files, Spring imports).
files() {
    git ls-files -z -- '*.java' '*.md' '*/src/*/resources/*' ':!:*.png' ':!:*.jar' ':!:*.gz' ":!:$RECORD"
}

# 1. Fully-qualified names and source paths (dev.leasebox.x.Y and dev/leasebox/x/Y), then Leasebox.Granularity
#    in Markdown (Java files get it in step 2, with their imports).
script=$(mktemp)
trap 'rm -f "$script"' EXIT
while read -r old new; do
    [ -z "$old" ] && continue
    old_re=${old//./\\.}
    old_path=${old//.//}
    new_path=${new//.//}
    printf 's/(^|[^A-Za-z0-9_.])%s\\b/\\1%s/g\n' "$old_re" "$new" >>"$script"
    printf 's#(^|[^A-Za-z0-9_])%s\\b#\\1%s#g\n' "$old_path" "$new_path" >>"$script"
done <<<"$MOVES"
files | xargs -0 sed -i -E -f "$script"
git ls-files -z -- '*.md' ":!:$RECORD" | xargs -0 sed -i -E 's/(^|[^A-Za-z0-9_.])Leasebox\.Granularity\b/\1Granularity/g'

# 2. and 3. Imports and package lines, where a simple name now needs an import.
git ls-files -z -- '*.java' | MOVES="$MOVES" python3 -c '
import os, re, sys, glob

moves = [l.split() for l in os.environ["MOVES"].splitlines() if l.strip()]
type_moves = {}        # old fqn -> new fqn, for single types
package_moves = {}     # old package -> new package
for old, new in moves:
    if old[old.rfind(".") + 1].isupper():
        type_moves[old] = new
    else:
        package_moves[old] = new
type_moves.pop("dev.leasebox.Leasebox.Granularity")  # a nested type before: handled on its own below

def pkg_of(fqn):
    return fqn[:fqn.rfind(".")]

def simple(fqn):
    return fqn[fqn.rfind(".") + 1:]

# The types of each package as the tree has them now, from the source directories of every module.
current = {}           # package -> set of simple names
for path in glob.glob("**/src/*/java/dev/leasebox/**/*.java", recursive=True):
    if "/target/" in path or path.endswith("-info.java"):
        continue
    package = path.split("/java/", 1)[1].rsplit("/", 1)[0].replace("/", ".")
    current.setdefault(package, set()).add(os.path.basename(path)[:-5])

def where_now(name, old_package):
    """The package a type that was in old_package is in now."""
    fqn = old_package + "." + name
    if fqn in type_moves:
        return pkg_of(type_moves[fqn])
    return package_moves.get(old_package, old_package)

# What each old package held: the types still there, the types moved out of it, and those of a moved package.
old_members = {}
for old in list(package_moves) + [pkg_of(o) for o in type_moves]:
    members = set(current.get(old, set())) | {simple(o) for o in type_moves if pkg_of(o) == old}
    if old in package_moves:
        members |= current.get(package_moves[old], set())
        members |= {simple(o) for o in type_moves if pkg_of(o) == old}
    old_members[old] = members

def old_package_of(name, package):
    """The package a file now in package, declaring name, was in before the moves."""
    for old, new in type_moves.items():
        if simple(old) == name and pkg_of(new) == package:
            return pkg_of(old)
    for old, new in package_moves.items():
        if new == package:
            return old
    return package

def code_only(text):
    """Java text without string literals and comments, but with the types named by Javadoc tags."""
    tags = " ".join(re.findall(r"(?:\{@link(?:plain)?|@see|@throws|@exception)\s+([A-Za-z_][\w.]*)", text))
    text = re.sub(r"\"(?:\\.|[^\"\\])*\"", "\"\"", text)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return text + "\n" + tags

def uses(code, name):
    return re.search(r"(?<![\w.])" + re.escape(name) + r"\b", code) is not None

def add_import(text, fqn):
    line = "import " + fqn + ";"
    if re.search(r"^" + re.escape(line) + r"$", text, flags=re.M):
        return text
    imports = [m for m in re.finditer(r"^import (?!static )([\w.]+);\n", text, flags=re.M)]
    later = [m for m in imports if m.group(1) > fqn and m.group(1).startswith("dev.leasebox.")]
    if later:
        at = later[0].start()
    elif imports:
        own = [m for m in imports if m.group(1).startswith("dev.leasebox.")]
        at = (own or imports)[-1].end()
    else:
        pm = re.search(r"^package [\w.]+;\n", text, flags=re.M)
        return text[:pm.end()] + "\n" + line + "\n" + text[pm.end():]
    return text[:at] + line + "\n" + text[at:]

NEW_NAMES = r"^import (?:static )?dev\.leasebox\.(?:claim\.|jdbc\.(?:dialect|store|lease)\.|provider\.(?:OutboxProvider|ProviderOutcome|ErrorClassifier|Envelope)\b)"
touched_packages = set(old_members) | set(package_moves.values()) | {pkg_of(n) for n in type_moves.values()}
for path in sys.stdin.read().split("\0"):
    if not path.endswith(".java") or not os.path.exists(path):
        continue
    with open(path, encoding="utf-8") as f:
        text = original = f.read()
    name = os.path.basename(path)[:-5]
    m = re.search(r"/src/[^/]+/java/(dev/leasebox/.*)/[^/]+\.java$", "/" + path)
    pm = re.search(r"^package ([\w.]+);", text, flags=re.M)
    if m and pm and name not in ("package-info", "module-info"):
        wanted = m.group(1).replace("/", ".")
        if pm.group(1) != wanted:
            text = text[:pm.start(1)] + wanted + text[pm.end(1):]
    pm = re.search(r"^package ([\w.]+);", text, flags=re.M)
    package = pm.group(1) if pm else ""

    # Leasebox.Granularity, a nested enum before, is dev.leasebox.claim.Granularity now.
    if re.search(r"(?<![\w.])Leasebox\.Granularity\b", text):
        other = ("Granularity" in current.get(package, set()) and package != "dev.leasebox.claim") or re.search(
            r"^import (?!dev\.leasebox\.claim\.Granularity;)[\w.]+\.Granularity;", text, flags=re.M)
        text = re.sub(r"(?<![\w.])Leasebox\.Granularity\b", "dev.leasebox.claim.Granularity" if other else "Granularity", text)
        if not other and package != "dev.leasebox.claim":
            text = add_import(text, "dev.leasebox.claim.Granularity")
        body = re.sub(r"^import [^\n]*\n", "", text, flags=re.M)
        if not uses(code_only(body), "Leasebox"):
            text = re.sub(r"^import dev\.leasebox\.Leasebox;\n", "", text, flags=re.M)

    if package in touched_packages:
        was = old_package_of(name, package)
        code = code_only(re.sub(r"^(?:package|import) [^\n]*\n", "", text, flags=re.M))
        for member in sorted(old_members.get(was, ())):
            now = where_now(member, was)
            if member == name or now == package or not uses(code, member):
                continue
            if re.search(r"^import [\w.]+\." + member + ";", text, flags=re.M):
                continue
            if member in current.get(package, set()):
                continue
            text = add_import(text, now + "." + member)
        # an import of the file s own package is redundant
        text = re.sub(r"^import " + re.escape(package) + r"\.[A-Z]\w*;\n", "", text, flags=re.M)
    if text != original or re.search(NEW_NAMES, text, flags=re.M):
        # keep each run of dev.leasebox imports sorted, as they were before the names changed
        text = re.sub(r"(?:^import dev\.leasebox\.[\w.]+;\n)+",
                      lambda run: "".join(sorted(set(run.group(0).splitlines(keepends=True)))), text, flags=re.M)
    if text != original:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
'
