#!/usr/bin/env bash
# Regenerates the document, data and text-markup detection fixtures in
# test/fixtures/detect/documents/ with the tools that write each format (LibreOffice, AbiWord,
# pandoc, calibre, Free Pascal's chmcmd, DjVuLibre, SQLite, netCDF, NumPy, Avro, mktorrent,
# text2pcap, GNU zip, javac/jar, msitools, Ghostscript, shapelib, apache-arrow and hyparquet-writer
# from npm), and copies the few that no Debian tool writes from Debian source packages (`apt-get
# source`, see README.md). The hand-written text fixtures there are not touched.
# Run from the repository root:   bash test/detect/make-fixtures-documents.sh
set -euo pipefail

out="$(cd "$(dirname "$0")/../fixtures/detect/documents" && pwd)"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

office() { # office <target[:filter]> <source>: LibreOffice with a throwaway profile
  # SKIP_OFFICE=1 keeps the committed LibreOffice fixtures (each conversion starts an office).
  [ -z "${SKIP_OFFICE:-}" ] || return 1
  soffice -env:UserInstallation="file://$work/profile" --headless --convert-to "$1" --outdir "$work" "$2" >/dev/null 2>&1
}

printf 'Quarterly report\n\nSales rose in the north.\n' > report.txt
printf 'region,units\nnorth,12\nsouth,7\n' > sheet.csv
cp "$out/../slides.odp" slides.odp

# --- LibreOffice: macro-enabled and slide-show OOXML, flat ODF, ODF drawing
office 'docm:MS Word 2007 XML VBA' report.txt && cp report.docm "$out/report.docm" || true
office 'xlsm:Calc MS Excel 2007 VBA XML' sheet.csv && cp sheet.xlsm "$out/sheet.xlsm" || true
office 'pptm:Impress MS PowerPoint 2007 XML VBA' slides.odp && cp slides.pptm "$out/slides.pptm" || true
# LibreOffice writes its slide show with the presentation's content type: its bytes are a pptx.
office 'ppsx:Impress MS PowerPoint 2007 XML AutoPlay' slides.odp && cp slides.ppsx "$out/slides.ppsx" || true
office odg "$out/../logo.svg" && cp logo.odg "$out/drawing.odg" || true
# ODF formula: LibreOffice Math (libreoffice-math) from a MathML equation.
printf '<math xmlns="http://www.w3.org/1998/Math/MathML"><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow></math>\n' > formula.mml
office odf formula.mml && cp formula.odf "$out/formula.odf" || true
# ODF database: LibreOffice Base (libreoffice-base) through UNO, over a dBASE folder.
[ -n "${SKIP_OFFICE:-}" ] || { mkdir odb && /usr/bin/python3 "$repo/test/detect/make-fixture-odb.py" "$work/odb" "$out/items.odb"; }
office fodt report.txt && cp report.fodt "$out/report.fodt" || true
office fods sheet.csv && cp sheet.fods "$out/sheet.fods" || true
office fodp slides.odp && cp slides.fodp "$out/slides.fodp" || true
# An ODF package whose mimetype entry is not first (and compressed), as a generic zip tool
# writes it when a document is unpacked and zipped again.
mkdir odt-unpacked && (cd odt-unpacked && unzip -q "$out/../document.odt" && rm -f "$out/odt-late-mimetype.odt" \
  && zip -q -X -r "$out/odt-late-mimetype.odt" content.xml styles.xml META-INF mimetype)
# An OOXML package whose main part is not at word/document.xml: the relationships and content
# types point at doc/main.xml instead.
mkdir docx-moved && (cd docx-moved && unzip -q "$out/../document.docx" && mkdir doc && mv word/document.xml doc/main.xml \
  && sed -i 's#/word/document.xml#/doc/main.xml#' '[Content_Types].xml' && sed -i 's#word/document.xml#doc/main.xml#' _rels/.rels \
  && mkdir -p doc/_rels && mv word/_rels/document.xml.rels doc/_rels/main.xml.rels && sed -i 's#Target="#Target="../word/#g' doc/_rels/main.xml.rels \
  && rm -f "$out/docx-moved-parts.docx" && zip -q -X -r "$out/docx-moved-parts.docx" '[Content_Types].xml' _rels doc word docProps)

# --- AbiWord
abiword --to=abw report.txt -o "$out/report.abw"

# --- pandoc: DocBook, Jupyter, Textile, MediaWiki, man (roff), AsciiDoc, OPML
printf '# Quarterly report\n\nSales rose in the **north**.\n\n## Regions\n\n- north\n- south\n\nSee [the site](https://example.org).\n' > report.md
pandoc -s -t docbook5 report.md -o "$out/report.dbk"
pandoc -t ipynb report.md -o "$out/notebook.ipynb"
pandoc -t textile report.md -o "$out/report.textile"
pandoc -t mediawiki report.md -o "$out/report.wiki"
pandoc -s -t man -M title=REPORT -M section=1 report.md -o "$out/report.1"
pandoc -s -t asciidoc report.md -o "$out/report.adoc"
pandoc -s -t opml report.md -o "$out/outline.opml"

# --- calibre: Microsoft Reader
ebook-convert "$out/../book.epub" book.lit >/dev/null 2>&1 && cp book.lit "$out/book.lit"

# --- Compiled HTML Help: Free Pascal's chmcmd (fp-utils) from a one-page project
printf '<html><head><title>Help</title></head><body><h1>Help</h1><p>Sales rose in the north.</p></body></html>\n' > index.html
printf '[OPTIONS]\nCompiled file=help.chm\nDefault topic=index.html\nTitle=Help\n\n[FILES]\nindex.html\n' > help.hhp
chmcmd help.hhp >/dev/null && cp help.chm "$out/help.chm"

# --- DjVuLibre
convert -size 32x32 gradient:white-black page.pgm && c44 page.pgm "$out/page.djvu"

# --- data: SQLite, netCDF classic and netCDF-4 (HDF5), NumPy, binary plist, Avro, torrent, pcap(ng)
rm -f "$out/inventory.sqlite"
sqlite3 "$out/inventory.sqlite" 'CREATE TABLE items(name TEXT, qty INTEGER); INSERT INTO items VALUES ("bolt", 12), ("nut", 7);'
printf 'netcdf t {\ndimensions: x = 3 ;\nvariables: int v(x) ;\ndata: v = 1, 2, 3 ;\n}\n' > t.cdl
ncgen -k classic -o "$out/grid.nc" t.cdl
ncgen -k nc4 -o "$out/grid.h5" t.cdl
/usr/bin/python3 -c 'import numpy; numpy.save("'"$out"'/array.npy", numpy.arange(6, dtype="int16"))'
/usr/bin/python3 -c 'import plistlib; open("'"$out"'/settings.plist", "wb").write(plistlib.dumps({"name": "fileconv", "n": 3}, fmt=plistlib.FMT_BINARY))'
/usr/bin/python3 - "$out/items.avro" <<'PY'
import sys, avro.schema
from avro.datafile import DataFileWriter
from avro.io import DatumWriter
schema = avro.schema.parse('{"type":"record","name":"Item","fields":[{"name":"name","type":"string"},{"name":"qty","type":"int"}]}')
with DataFileWriter(open(sys.argv[1], "wb"), DatumWriter(), schema) as w:
    w.append({"name": "bolt", "qty": 12})
PY
rm -f "$out/files.torrent" && mktorrent -a http://tracker.example.org/announce -d -o "$out/files.torrent" report.txt >/dev/null
printf '0000  45 00 00 1c 00 01 00 00 40 01 7c de 7f 00 00 01 7f 00 00 01 08 00 f7 ff 00 00 00 00\n' > packet.txt
text2pcap -q -F pcap -l 101 packet.txt "$out/capture.pcap"
text2pcap -q -F pcapng -l 101 packet.txt "$out/capture.pcapng"
# Arrow IPC, Parquet, Excel binary and Lotus 1-2-3: npm packages, in a throwaway folder.
mkdir npm && cp "$repo/test/detect/make-fixtures-npm.mjs" npm/ && (cd npm \
  && echo '{"private":true,"type":"module"}' > package.json \
  && npm install --no-audit --no-fund --silent apache-arrow@21.2.0 hyparquet-writer@0.17.0 xlsx@0.18.5 \
  && node make-fixtures-npm.mjs "$out")
# dBASE III table: shapelib's dbfcreate and dbfadd (it writes a fixed 1995-07-26 header date).
rm -f "$out/items.dbf" && dbfcreate "$out/items" -s name 16 -n qty 8 0 && dbfadd "$out/items" bolt 12 && dbfadd "$out/items" nut 7

# --- ZIP-based: KMZ, comic book (ZIP), Java archive
printf '<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>HQ</name><Point><coordinates>2.35,48.85</coordinates></Point></Placemark></kml>\n' > doc.kml
rm -f "$out/places.kmz" && zip -q -X "$out/places.kmz" doc.kml
convert -size 16x16 gradient:red-blue p001.png
printf '<?xml version="1.0"?>\n<ComicInfo><Title>Sample</Title><PageCount>1</PageCount></ComicInfo>\n' > ComicInfo.xml
rm -f "$out/comic.cbz" && zip -q -X "$out/comic.cbz" ComicInfo.xml p001.png
printf 'public class Hello { public static void main(String[] a) { System.out.println("hi"); } }\n' > Hello.java
javac -d classes Hello.java && jar --create --file "$out/hello.jar" --main-class Hello -C classes .

# --- Windows Installer (msitools' wixl from a minimal WiX source)
cat > app.wxs <<'XML'
<?xml version="1.0"?>
<Wix xmlns="http://schemas.microsoft.com/wix/2006/wi">
 <Product Id="*" Name="Sample" Language="1033" Version="1.0.0" Manufacturer="Example" UpgradeCode="12345678-1234-1234-1234-123456789012">
  <Package InstallerVersion="200" Compressed="yes"/>
  <Media Id="1" Cabinet="app.cab" EmbedCab="yes"/>
  <Directory Id="TARGETDIR" Name="SourceDir"><Directory Id="ProgramFilesFolder"><Directory Id="APP" Name="Sample">
   <Component Id="Main" Guid="12345678-1234-1234-1234-123456789013"><File Id="readme" Source="report.txt"/></Component>
  </Directory></Directory></Directory>
  <Feature Id="All" Level="1"><ComponentRef Id="Main"/></Feature>
 </Product>
</Wix>
XML
wixl -o "$out/setup.msi" app.wxs

# --- XPS (Ghostscript's xpswrite device)
printf '%%!PS\nnewpath 20 20 moveto 120 90 lineto 40 140 lineto closepath stroke showpage\n' > drawing.ps
gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=xpswrite -o "$out/drawing.xps" drawing.ps

# --- taken from Debian source packages (bookworm), which no Debian tool writes
src="$work/src" && mkdir "$src" && cd "$src"
apt-get source -q -d libemail-outlook-message-perl libetonyek libvisio shared-mime-info \
  >/dev/null 2>&1 || true
tar xf libemail-outlook-message-perl_*.orig.tar.gz && cp Email-Outlook-Message-*/t/files/plain_unsent.msg "$out/message.msg"
tar xf libetonyek_*.orig.tar.xz
cp libetonyek-*/src/test/data/pages4-file.pages "$out/pages09.pages"
cp libetonyek-*/src/test/data/numbers3-file.numbers "$out/numbers2013.numbers"
# Keynote saves a package folder; zipped, as it is sent, it is the file format.
(cd libetonyek-*/src/test/data/keynote4-package.key && rm -f "$out/keynote09.key" && zip -q -X -r "$out/keynote09.key" .)
tar xf libvisio_*.orig.tar.xz
cp libvisio-*/src/test/data/Visio5TextFieldsWithUnits.vsd "$out/visio5.vsd"
cp libvisio-*/src/test/data/bgcolor.vsdx "$out/drawing.vsdx"
# shared-mime-info's detection samples: OpenOffice.org 1.0 text, Works, Publisher (kept to its
# first 128 KB there).
tar xjf shared-mime-info_*.orig.tar.bz2 --wildcards '*/tests/mime-detection/ooo.sxw' \
  '*/tests/mime-detection/test.wps' '*/tests/mime-detection/TS010082249.pub'
cp shared-mime-info-*/tests/mime-detection/ooo.sxw "$out/ooo.sxw"
cp shared-mime-info-*/tests/mime-detection/test.wps "$out/works.wps"
cp shared-mime-info-*/tests/mime-detection/TS010082249.pub "$out/publisher.pub"
