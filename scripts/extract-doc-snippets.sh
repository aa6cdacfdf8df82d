#!/usr/bin/env bash
# Copies the Swift code blocks of the documentation, verbatim, into test files that compile
# them. A block marked `<!-- snippet: NAME run|compile -->` becomes the body of a method NAME of
# the document's snippet class (declared beside the generated file: it provides what the blocks
# use without declaring it); its `import` lines go to the top of the file. Blocks marked with
# the same NAME one after another form one method, so a guide's blocks can build on each other. A block marked
# `<!-- excerpt: PATH -->` is a copy of the code of a compiled file and is only checked.
# The test suite (`DocumentationBlockTests`) checks that every block is marked and matches;
# run this script after editing a snippet block.
set -euo pipefail
cd "$(dirname "$0")/.."

# document : snippet class : generated file : modules to import
documents=(
  "README.md:ReadmeSnippets:Tests/CoreStoreTests/DocSnippets/README+Snippets.swift:Foundation CoreStore CoreStoreInMemory CoreStoreSQLite CoreStorePostgres"
  "docs/MIGRATIONS.md:MigrationsSnippets:Tests/CoreStoreTests/DocSnippets/MIGRATIONS+Snippets.swift:Foundation CoreStore CoreStoreSQLite"
  "docs/CONFORMANCE.md:ConformanceSnippets:Tests/CoreStoreConformanceTests/DocSnippets/CONFORMANCE+Snippets.swift:Foundation XCTest CoreStoreConformance"
  "docs/GETTING-STARTED.md:GuideSnippets:Tests/CoreStoreTests/DocSnippets/GETTING-STARTED+Snippets.swift:Foundation CoreStore CoreStoreSQLite"
  "docs/BACKENDS.md:GuideSnippets:Tests/CoreStoreTests/DocSnippets/BACKENDS+Snippets.swift:Foundation CoreStore CoreStoreSQLite CoreStoreLMDB CoreStoreLevelDB"
  "docs/TRANSACTIONS.md:GuideSnippets:Tests/CoreStoreTests/DocSnippets/TRANSACTIONS+Snippets.swift:Foundation CoreStore"
  "docs/FETCHING.md:GuideSnippets:Tests/CoreStoreTests/DocSnippets/FETCHING+Snippets.swift:Foundation CoreStore"
  "docs/IMPORTING.md:GuideSnippets:Tests/CoreStoreTests/DocSnippets/IMPORTING+Snippets.swift:Foundation CoreStore"
  "docs/POSTGRES.md:GuideSnippets:Tests/CoreStoreTests/DocSnippets/POSTGRES+Snippets.swift:Foundation CoreStore CoreStorePostgres"
)

for entry in "${documents[@]}"; do
  IFS=: read -r document class out modules <<< "$entry"
  mkdir -p "$(dirname "$out")"
  awk -v document="$document" -v class="$class" -v modules="$modules" '
  BEGIN {
      print "// Generated from " document " by scripts/extract-doc-snippets.sh: edit the document, then run"
      print "// the script. Each method is one code block of the document (or a run of blocks of one name), verbatim."
      n = split(modules, list, " ")
      for (i = 1; i <= n; i++) print "import " list[i]
      print ""
      print "extension " class " {"
  }
  FNR == NR { if ($0 ~ /^<!-- snippet: [A-Za-z0-9_]+ (run|compile) -->$/) blocks[$3]++; next }
  /^<!-- snippet: [A-Za-z0-9_]+ (run|compile) -->$/ { name = $3; next }
  /^```swift$/ {
      if (name == "") next
      inside = 1
      if (name == method) { print ""; next }
      if (method != "") { print "    }"; print "" }
      method = name
      print "    /// " document ", the `" name "` block" (blocks[name] > 1 ? "s" : "") "."
      print "    func " name "() async throws {"
      next
  }
  /^```$/ {
      if (inside) { inside = 0; name = "" }
      next
  }
  inside && /^import / { next }
  inside { if ($0 == "") print ""; else print "        " $0; next }
  { if ($0 != "") name = "" }
  END { if (method != "") { print "    }"; print "" }; print "}" }
  ' "$document" "$document" > "$out"
  echo "wrote $out"
done
