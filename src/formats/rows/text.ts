import type { FormatRow } from '../types.js';

// Text markup, source code and configuration beyond the common ones; all text underneath.
export const TEXT_ROWS: FormatRow[] = [
  ['bib', 'BibTeX bibliography', 'text', 'text/x-bibtex', ['bib'], ['bibtex']],
  ['textile', 'Textile', 'text', 'text/x-textile'],
  ['roff', 'roff/man page', 'text', 'text/troff', ['roff', 'man', 'tr'], ['man', 'troff', 'groff']],
  ['mediawiki', 'MediaWiki markup', 'text', 'text/x-wiki', ['wiki', 'mediawiki'], ['wiki']],
  ['adoc', 'AsciiDoc', 'text', 'text/asciidoc', ['adoc', 'asciidoc'], ['asciidoc']],
  ['diff', 'Diff or patch', 'code', 'text/x-diff', ['diff', 'patch'], ['patch']],
  ['cs', 'C# source', 'code', 'text/x-csharp', ['cs'], ['csharp', 'c#']],
  ['kt', 'Kotlin source', 'code', 'text/x-kotlin', ['kt', 'kts'], ['kotlin']],
  ['swift', 'Swift source', 'code', 'text/x-swift'],
  ['r', 'R script', 'code', 'text/x-r', ['r'], ['rscript']],
  ['bat', 'Windows batch file', 'code', 'text/x-msdos-batch', ['bat', 'cmd'], ['batch']],
  ['ps1', 'PowerShell script', 'code', 'text/x-powershell', ['ps1', 'psm1', 'psd1'], ['powershell']],
  ['hs', 'Haskell source', 'code', 'text/x-haskell', ['hs', 'lhs'], ['haskell']],
  ['scss', 'Sass (SCSS) stylesheet', 'code', 'text/x-scss', ['scss', 'sass'], ['sass']],
  ['less', 'Less stylesheet', 'code', 'text/x-less'],
  ['properties', 'Java properties', 'code', 'text/x-java-properties'],
  ['xsl', 'XSLT stylesheet', 'code', 'application/xslt+xml', ['xsl', 'xslt'], ['xslt']],
  ['dtd', 'XML DTD', 'code', 'application/xml-dtd'],
  ['pem', 'PEM certificate or key', 'data', 'application/x-pem-file', ['pem', 'crt', 'cer'], []],
  ['m3u', 'M3U playlist', 'text', 'audio/x-mpegurl', ['m3u', 'm3u8'], ['m3u8']],
  ['cue', 'CUE sheet', 'text', 'application/x-cue'],
];
