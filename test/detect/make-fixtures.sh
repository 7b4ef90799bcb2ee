#!/usr/bin/env bash
# Regenerates the binary detection fixtures in test/fixtures/detect/ with the engines installed
# on this machine (LibreOffice, FFmpeg, ImageMagick, Ghostscript, pandoc, calibre, 7z).
# The hand-written text fixtures next to them are not touched. Run from the repository root:
#   bash test/detect/make-fixtures.sh
set -euo pipefail

out="$(cd "$(dirname "$0")/../fixtures/detect" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

office() { # office <target> <source>: LibreOffice with a throwaway profile
  soffice -env:UserInstallation="file://$work/profile" --headless --convert-to "$1" --outdir "$work" "$2" >/dev/null 2>&1
}

# --- office documents
printf 'Quarterly report\n\nSales rose in the north.\n' > doc-src.txt
office odt doc-src.txt && cp doc-src.odt "$out/document.odt"
office docx doc-src.txt && cp doc-src.docx "$out/document.docx"
office 'doc:MS Word 97' doc-src.txt && cp doc-src.doc "$out/document.doc"
office rtf doc-src.txt && cp doc-src.rtf "$out/document.rtf"
office pdf doc-src.txt && cp doc-src.pdf "$out/document.pdf"
mkdir pdfa && soffice -env:UserInstallation="file://$work/profile" --headless \
  --convert-to 'pdf:writer_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"2"}}' --outdir "$work/pdfa" \
  doc-src.txt >/dev/null 2>&1
cp pdfa/doc-src.pdf "$out/archival.pdfa.pdf"

printf 'region,units\nnorth,12\nsouth,7\n' > sheet-src.csv
office ods sheet-src.csv && cp sheet-src.ods "$out/sheet.ods"
office xlsx sheet-src.csv && cp sheet-src.xlsx "$out/sheet.xlsx"
office 'xls:MS Excel 97' sheet-src.csv && cp sheet-src.xls "$out/sheet.xls"

cat > slides-src.fodp <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
  xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
  xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
  xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
  office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.presentation">
 <office:body><office:presentation>
  <draw:page draw:name="one"><draw:frame svg:x="2cm" svg:y="2cm" svg:width="10cm" svg:height="2cm">
   <draw:text-box><text:p>Roadmap</text:p></draw:text-box></draw:frame></draw:page>
 </office:presentation></office:body>
</office:document>
XML
office odp slides-src.fodp && cp slides-src.odp "$out/slides.odp"
office pptx slides-src.fodp && cp slides-src.pptx "$out/slides.pptx"
office 'ppt:MS PowerPoint 97' slides-src.fodp && cp slides-src.ppt "$out/slides.ppt"

# --- PostScript
# A drawing without text keeps the output free of embedded fonts, so it stays small.
printf '%%!PS\nnewpath 20 20 moveto 120 90 lineto 40 140 lineto closepath stroke showpage\n' > drawing.ps
gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=ps2write -o "$out/page.ps" drawing.ps
gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=eps2write -o "$out/figure.eps" drawing.ps

# --- images
convert -size 16x16 gradient:red-blue src.png
cp src.png "$out/image.png"
for fmt in jpg gif webp tiff bmp psd; do convert src.png "$out/image.$fmt"; done
convert src.png -define heic:speed=9 "$out/image.avif"
convert src.png "$out/image.heic"
convert src.png -define icon:auto-resize=16 "$out/image.ico"

# --- audio and video (FFmpeg test sources)
tone=(-f lavfi -i sine=frequency=440:duration=0.2)
ffmpeg -v error -y "${tone[@]}" -c:a libmp3lame -b:a 32k "$out/audio.mp3"
ffmpeg -v error -y "${tone[@]}" -ar 8000 -c:a pcm_u8 "$out/audio.wav"
ffmpeg -v error -y "${tone[@]}" -c:a libvorbis -q:a 0 "$out/audio.ogg"
ffmpeg -v error -y "${tone[@]}" -ar 8000 -c:a flac "$out/audio.flac"
ffmpeg -v error -y "${tone[@]}" -c:a aac -b:a 24k "$out/audio.m4a"
ffmpeg -v error -y "${tone[@]}" -c:a aac -b:a 24k -f adts "$out/audio.aac"
ffmpeg -v error -y "${tone[@]}" -c:a libopus -b:a 8k "$out/audio.opus"
clip=(-f lavfi -i testsrc=size=32x32:rate=5:duration=0.4)
ffmpeg -v error -y "${clip[@]}" -c:v libx264 -pix_fmt yuv420p "$out/video.mp4"
ffmpeg -v error -y "${clip[@]}" -c:v libvpx -b:v 50k "$out/video.webm"
ffmpeg -v error -y "${clip[@]}" -c:v mpeg4 "$out/video.mkv"
ffmpeg -v error -y "${clip[@]}" -c:v mpeg4 "$out/video.mov"
ffmpeg -v error -y "${clip[@]}" -c:v mpeg4 "$out/video.avi"

# --- ebooks
printf '# Chapter one\n\nIt was a quiet morning.\n' > book.md
pandoc book.md -o book.epub --metadata title=Sample
cp book.epub "$out/book.epub"
ebook-convert book.epub book.mobi >/dev/null 2>&1 && cp book.mobi "$out/book.mobi"
ebook-convert book.epub book.azw3 >/dev/null 2>&1 && cp book.azw3 "$out/book.azw3"
ebook-convert book.epub book.fb2 >/dev/null 2>&1 && cp book.fb2 "$out/book.fb2"

# --- archives
mkdir files && printf 'alpha\n' > files/a.txt && printf 'beta\n' > files/b.txt
(cd files && 7z a -tzip -bso0 -bsp0 ../files.zip a.txt b.txt)
cp files.zip "$out/archive.zip"
tar -cf "$out/archive.tar" -C files a.txt b.txt
gzip -9 -n -c files/a.txt > "$out/archive.gz"
(cd files && 7z a -t7z -bso0 -bsp0 ../files.7z a.txt b.txt)
cp files.7z "$out/archive.7z"

# --- bytes that are no format: fixed pseudo-random data, not starting with any signature
python3 -c "import random,sys; r=random.Random(7); sys.stdout.buffer.write(bytes([0x9b]) + bytes(r.randrange(256) for _ in range(2047)))" > "$out/garbage.bin"

ls -la "$out"
