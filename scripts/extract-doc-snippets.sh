#!/usr/bin/env bash
# Copies the Swift code blocks of README.md, verbatim, into a test file that compiles them:
# each block marked `<!-- snippet: NAME run|compile -->` becomes the body of a method NAME of
# `ReadmeSnippets` (Tests/CoreStoreTests/DocSnippets/ReadmeSnippets.swift declares what the
# blocks use without declaring it). Its `import` lines go to the top of the file. The test
# suite checks that the file matches README.md; run this script after editing a block.
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/CoreStoreTests/DocSnippets/README+Snippets.swift
awk '
BEGIN {
    print "// Generated from README.md by scripts/extract-doc-snippets.sh: edit the README, then run the"
    print "// script. Each method is one code block of the README, verbatim."
    print "import Foundation"
    print "import CoreStore"
    print "import CoreStoreInMemory"
    print "import CoreStoreSQLite"
    print ""
    print "extension ReadmeSnippets {"
}
/^<!-- snippet: [A-Za-z0-9_]+ (run|compile) -->$/ { name = $3; next }
/^```swift$/ {
    if (name == "") next
    inside = 1
    print "    /// README.md, the `" name "` block."
    print "    func " name "() async throws {"
    next
}
/^```$/ {
    if (inside) { print "    }"; print ""; inside = 0; name = "" }
    next
}
inside && /^import / { next }
inside { if ($0 == "") print ""; else print "        " $0; next }
{ if ($0 != "") name = "" }
END { print "}" }
' README.md > "$out"
echo "wrote $out"
