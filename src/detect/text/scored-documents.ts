/** A trait of a text format: a pattern and how much finding it anywhere counts (see scored.ts). */
type Trait = [pattern: RegExp, weight: number];

/**
 * Traits of the markup and code formats of the text rows (src/formats/rows/text.ts), scored with
 * the others in scored.ts. Each needs one distinctive trait (weight 2 or more) to be claimed.
 */
export const DOCUMENT_TRAITS: Record<string, Trait[]> = {
  adoc: [
    [/^= \S.*\n(:[\w-]+:.*\n|[^\n=].*\n)/m, 3],
    [/^:(toc|author|revnumber|doctype|icons|source-highlighter|imagesdir|sectnums):/m, 3],
    [/^\[(source|NOTE|TIP|WARNING|IMPORTANT|quote|listing)(,[^\]]*)?\]\s*$/m, 3],
    [/^(==|===) \S/m, 1],
    [/^----\s*$/m, 1],
    [/\b(link|image|xref|include)::?[^\s[]*\[/, 2],
    // A URL followed by its link text in brackets is AsciiDoc's link macro.
    [/https?:\/\/[^\s[\]]+\[[^\]\n]*\]/, 3],
  ],
  textile: [
    [/^h[1-6](\([^)]*\))?\. \S/m, 3],
    [/^(p|bq|bc|fn\d+)\. \S/m, 2],
    [/"[^"\n]+":https?:\/\//, 2],
    [/^\|_\. /m, 2],
    [/^# \S[^\n]*\n# \S/m, 1],
  ],
  mediawiki: [
    // A heading between runs of `=` alone is no wiki: changelogs and plain-text notes write them
    // too. It counts with a link, bold, a template or a table beside it.
    [/^(={2,6}) ?[^=\n]+ ?\1\s*$/m, 2],
    [/\[\[[^\]|\n]+(\|[^\]\n]+)?\]\]/, 2],
    [/'''[^'\n]+'''/, 2],
    [/\{\{[^}\n]+\}\}/, 2],
    [/^\{\|/m, 3],
    [/^\[\[Category:/m, 3],
  ],
  cs: [
    [/^using System(\.[\w.]+)?;\s*$/m, 4],
    [/^\s*namespace [\w.]+\s*(\{|;)/m, 2],
    [
      /^\s*(public|internal|private)\s+(static\s+|sealed\s+|partial\s+|abstract\s+)*(class|record|struct|interface)\s+\w+/m,
      1,
    ],
    [/\b(Console\.WriteLine|string\[\] args|async Task)\b/, 3],
    [/\{\s*get;\s*(set;|init;)?\s*\}/, 3],
  ],
  kt: [
    [/^\s*fun (main|\w+)\s*\([^)]*\)(\s*:\s*[\w<>?]+)?\s*[{=]/m, 3],
    [/^\s*(val|var) \w+(\s*:\s*[\w<>?]+)?\s*=/m, 1],
    [/^package [\w.]+\s*$/m, 1],
    [/^\s*(data |sealed |enum )?class \w+\s*\((val|var|private val) /m, 3],
    [/\bprintln\("/, 1],
    [/^import kotlin(x)?\./m, 4],
  ],
  swift: [
    [/^import (Foundation|UIKit|SwiftUI|Cocoa)\s*$/m, 4],
    [/^\s*func \w+\s*(<[^>]*>)?\([^)]*\)(\s*(async\s+)?(throws\s+)?->\s*[\w<>?[\]]+)?\s*\{/m, 2],
    [/^\s*(let|var) \w+\s*(:\s*[\w<>?[\]]+)?\s*=/m, 1],
    [/^\s*(struct|protocol|extension) \w+(\s*:\s*[\w, ]+)?\s*\{/m, 2],
    [/\bguard let\b|\bif let \w+ =/, 3],
    [/\bprint\("[^"\n]*\\\(/, 2],
  ],
  r: [
    [/^\s*[\w.]+\s*<-\s*function\s*\(/m, 4],
    [/^\s*library\([\w.]+\)\s*$/m, 3],
    [/\b[\w.]+\s*<-\s*(c|data\.frame|list|read\.csv)\(/, 3],
    [/\$\w+\s*(<-|==)/, 1],
  ],
  bat: [
    [/^@echo off\s*$/im, 5],
    [/^\s*(rem|::) /im, 1],
    [/%~?\w+%|%~dp0/, 2],
    [/^\s*(setlocal|endlocal|goto :?\w+|if errorlevel)\b/im, 3],
    [/^\s*set \w+=/im, 1],
  ],
  ps1: [
    [/^\s*param\s*\(/im, 3],
    [/\b(Write-(Host|Output|Error)|Get-\w+|Set-\w+|New-Object|Import-Module)\b/, 3],
    [/\$(env:\w+|PSScriptRoot|_\.\w+)/, 3],
    [/\[(string|int|switch|Parameter\([^)]*\))\]\s*\$\w+/i, 3],
    [/^\s*function [\w-]+-\w+\s*\{/m, 3],
  ],
  hs: [
    [/^module [\w.]+( \([^)]*\))? where\s*$/m, 4],
    [/^import qualified [\w.]+/m, 4],
    [/^\w+ :: [\w[\]() ->]+$/m, 3],
    [/^main = do\s*$/m, 4],
    [/^import [A-Z][\w.]*( \(.*\))?\s*$/m, 1],
  ],
  scss: [
    [/^\s*\$[\w-]+\s*:\s*[^;]+;/m, 2],
    [/^\s*@(mixin|include|use|forward|extend) /m, 3],
    [/&(:hover|:focus|\.[\w-]+|__[\w-]+|--[\w-]+)/, 2],
    [/#\{\$[\w-]+\}/, 3],
  ],
  less: [
    [/^\s*@[\w-]+\s*:\s*[^;]+;/m, 2],
    [/^\s*\.[\w-]+\([^)]*\)\s*;/m, 3],
    [/^\s*\.[\w-]+\(\s*@[\w-]+[^)]*\)\s*(when\s*\(.*\)\s*)?\{/m, 4],
    [/\b(darken|lighten|fade|spin)\(@[\w-]+/, 3],
    [/~"[^"]*"/, 2],
  ],
  properties: [
    [/^([\w-]+\.)+[\w-]+\s*[=:]\s*\S/m, 1],
    [/^([\w-]+\.){2,}[\w-]+\s*=\s*.*\n([\w-]+\.){2,}[\w-]+\s*=/m, 3],
    [/^#.*\n([\w-]+\.)+[\w-]+\s*=/m, 1],
  ],
};
