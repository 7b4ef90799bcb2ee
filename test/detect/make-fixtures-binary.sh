#!/usr/bin/env bash
# Regenerates the detection fixtures of the binary formats (compressed files, archives, packages,
# disk images, executables, fonts, 3D models) in test/fixtures/detect/binary/, one a variant, each
# written by the tool that writes the format. RAR archives, which no Debian tool writes, and LHA
# archives of each header level come from the test data of Debian's libarchive source package; a
# Blender file from that of Debian's assimp source package, a 3MF model from lib3mf's. Fetch them
# into a folder first (deb-src enabled): `apt-get source --download-only libarchive assimp lib3mf`.
# Run from the repository root:
#   bash test/detect/make-fixtures-binary.sh [folder holding libarchive_*.orig.tar.xz, assimp_*.orig.tar.xz]
# Tools: xz-utils bzip2 zstd lz4 lzip ncompress libarchive-tools cpio gcab rpm dpkg genisoimage
# udftools arj binutils gcc llvm default-jdk-headless wabt python3-fonttools python3-brotli
# eot-utils assimp-utils fonts-dejavu-core aapt.
set -euo pipefail

out="$(cd "$(dirname "$0")/../fixtures/detect" && pwd)/binary"
rm -rf "$out" && mkdir -p "$out"
sources="${1:-}"
if [ -n "$sources" ]; then sources="$(cd "$sources" && pwd)"; fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
# Debian's python3-fonttools and python3-brotli are modules of the system Python.
py=/usr/bin/python3
export SOURCE_DATE_EPOCH=1700000000
printf 'The quick brown fox jumps over the lazy dog.\n' > note.txt
touch -d @"$SOURCE_DATE_EPOCH" note.txt

# --- compressed single files
bzip2 -9 -c note.txt > "$out/note.txt.bz2"
bzip2 -c < /dev/null > "$out/empty.bz2" # an empty stream: the end-of-stream magic, no block
xz -c note.txt > "$out/note.txt.xz"
xz -c --check=none --lzma2=preset=0 note.txt > "$out/note-nocheck.txt.xz"
zstd -q -c note.txt > "$out/note.txt.zst"
pzstd -q -p 1 -c note.txt > "$out/note-pzstd.txt.zst" # opens with a skippable frame
lz4 -q -c note.txt > "$out/note.txt.lz4"
lz4 -q -l -c note.txt > "$out/note-legacy.txt.lz4"
xz -c --format=lzma note.txt > "$out/note.txt.lzma"
lzip -c note.txt > "$out/note.txt.lz"
compress -c note.txt > "$out/note.txt.z"
compress -b 12 -c note.txt > "$out/note-12bit.txt.z"

# --- archives and packages
mkdir -p tree/docs && cp note.txt tree/docs/ && printf 'alpha\n' > tree/a.txt
bsdtar -cf "$out/archive-newc.cpio" --format newc -C tree .
bsdtar -cf "$out/archive-odc.cpio" --format odc -C tree .
(cd tree && find . | cpio --quiet -o -H bin > "$out/archive-bin.cpio")
(cd tree && find . | cpio --quiet -o -H crc > "$out/archive-crc.cpio")
bsdtar -cf "$out/archive.xar" --format xar -C tree .
bsdtar -cf "$out/archive-nochecksum.xar" --format xar --options xar:checksum=none -C tree .
gcab -c -z "$out/archive.cab" tree/a.txt tree/docs/note.txt
gcab -c "$out/archive-stored.cab" tree/a.txt
(cd tree && arj a -i -y "$out/archive.arj" a.txt docs/note.txt >/dev/null)

printf 'int answer(void) { return 42; }\n' > answer.c
gcc -c -Os -o answer.o answer.c
ar rcs "$out/libanswer.a" answer.o
ar rcsT "$out/libanswer-thin.a" answer.o
bsdtar -cf "$out/archive-bsd.a" --format arbsd note.txt

mkdir -p pkg/DEBIAN pkg/usr/share/doc/hello-note
cp note.txt pkg/usr/share/doc/hello-note/
cat > pkg/DEBIAN/control <<'EOF'
Package: hello-note
Version: 1.0
Architecture: all
Maintainer: Example <maint@example.org>
Description: a note
EOF
dpkg-deb --root-owner-group -Zxz --build pkg "$out/hello-note.deb" >/dev/null
dpkg-deb --root-owner-group -Zgzip --build pkg "$out/hello-note-gzip.deb" >/dev/null

mkdir -p rpm/SPECS rpm/SOURCES
cat > rpm/SPECS/hello-note.spec <<'EOF'
Name: hello-note
Version: 1.0
Release: 1
Summary: a note
License: MIT
BuildArch: noarch
%description
a note
%install
mkdir -p %{buildroot}/usr/share/doc/hello-note
echo note > %{buildroot}/usr/share/doc/hello-note/note.txt
%files
/usr/share/doc/hello-note/note.txt
EOF
rpmbuild --quiet --define "_topdir $work/rpm" --define '_binary_payload w2.xzdio' -bb rpm/SPECS/hello-note.spec
rpmbuild --quiet --define "_topdir $work/rpm" -bs rpm/SPECS/hello-note.spec >/dev/null
cp rpm/RPMS/noarch/hello-note-1.0-1.noarch.rpm "$out/hello-note.rpm"
cp rpm/SRPMS/hello-note-1.0-1.src.rpm "$out/hello-note.src.rpm"

# ISO 9660 without padding (smallest image), with Rock Ridge and Joliet, and a UDF bridge image.
genisoimage -quiet -no-pad -o "$out/disk.iso" tree
genisoimage -quiet -no-pad -R -J -o "$out/disk-joliet.iso" tree
# UDF alone (no ISO 9660 bridge), the smallest image mkudffs makes with 512-byte blocks.
mkudffs --blocksize=512 --media-type=hd --label=note "$out/disk-udf.iso" 100 >/dev/null

if [ -n "$sources" ]; then
  tar -xf "$sources"/libarchive_*.orig.tar.xz --wildcards --strip-components=3 \
    '*/test/test_read_format_rar.rar.uu' '*/test/test_read_format_rar5_compressed.rar.uu' \
    '*/test/test_read_format_lha_header0.lzh.uu' '*/test/test_read_format_lha_header1.lzh.uu' \
    '*/test/test_read_format_lha_header2.lzh.uu' '*/test/test_read_format_lha_lh6.lzh.uu'
  uu() { python3 -c 'import binascii,sys
lines=open(sys.argv[1]).read().splitlines()
body=lines[lines.index(next(l for l in lines if l.startswith("begin ")))+1:]
sys.stdout.buffer.write(b"".join(binascii.a2b_uu(l) for l in body if l not in ("end","`")))' "$1"; }
  uu test_read_format_rar.rar.uu > "$out/archive-v4.rar"
  uu test_read_format_rar5_compressed.rar.uu > "$out/archive-v5.rar"
  uu test_read_format_lha_header0.lzh.uu > "$out/archive-level0.lzh"
  uu test_read_format_lha_header1.lzh.uu > "$out/archive-level1.lzh"
  uu test_read_format_lha_header2.lzh.uu > "$out/archive-level2.lzh"
  uu test_read_format_lha_lh6.lzh.uu > "$out/archive-lh6.lzh"
  # Blender 2.48 (32-bit pointers, little-endian), and a 2.50 file saved compressed (gzip).
  tar -xOf "$sources"/assimp_*.orig.tar.xz --wildcards '*/test/models/BLEND/BlenderDefault_248.blend' \
    > "$out/default-248.blend"
  tar -xOf "$sources"/assimp_*.orig.tar.xz --wildcards \
    '*/test/models/BLEND/BlenderDefault_250_Compressed.blend' > "$out/default-250-gzip.blend"
  # 3D Manufacturing Format: lib3mf's smallest test package (a beam-lattice box).
  tar -xOf "$sources"/lib3mf_*.orig.tar.xz --wildcards '*/TestFiles/BeamLattice/Box_Simple.3mf' > "$out/box.3mf"
fi

# --- executables and bytecode
cat > start.s <<'EOF'
.globl _start
_start:
  ret
EOF
as --64 -o start64.o start.s && ld -s -o "$out/start.elf" start64.o
as --32 -o start32.o start.s && ld -s -m elf_i386 -o "$out/start32.elf" start32.o
cp answer.o "$out/answer.o"
gcc -shared -nostdlib -s -o "$out/libanswer.so" answer.c
ld -s -m i386pep --subsystem console -e _start -o "$out/start64.exe" start64.o
ld -s -m i386pe -e _start -o "$out/start32.exe" start32.o
ld -s -m i386pep --dll -e _start -o "$out/start.dll" start64.o
printf '.globl _answer\n_answer:\n  ret\n' > answer-macho.s
llvm-mc -filetype=obj -triple x86_64-apple-macos11 -o "$out/answer-x86_64.macho" answer-macho.s
llvm-mc -filetype=obj -triple arm64-apple-macos11 -o answer-arm64.o answer-macho.s
cp answer-arm64.o "$out/answer-arm64.macho"
llvm-mc -filetype=obj -triple i386-apple-macos10.4 -o "$out/answer-i386.macho" answer-macho.s
llvm-lipo-14 -create -output "$out/answer-universal.macho" "$out/answer-x86_64.macho" answer-arm64.o
printf '(module (func (export "answer") (result i32) i32.const 42))\n' > answer.wat
wat2wasm -o "$out/answer.wasm" answer.wat
printf 'public class Answer { public static int get() { return 42; } }\n' > Answer.java
javac --release 8 -g:none -d java8 Answer.java && cp java8/Answer.class "$out/Answer-java8.class"
javac -g:none -d java Answer.java && cp java/Answer.class "$out/Answer.class"
printf '.class public LAnswer;\n.super Ljava/lang/Object;\n' > Answer.smali
java -jar /usr/share/java/smali.jar assemble -o "$out/answer.dex" Answer.smali
# An Android package: aapt compiles a manifest and one string resource (resources.arsc), then adds
# the DEX file as classes.dex. Without the platform's android.jar the manifest has no android: attributes.
mkdir -p apk/res/values
printf '<?xml version="1.0" encoding="utf-8"?>\n<manifest package="org.example.answer">\n  <application/>\n</manifest>\n' \
  > apk/AndroidManifest.xml
printf '<?xml version="1.0" encoding="utf-8"?>\n<resources><string name="app_name">Answer</string></resources>\n' \
  > apk/res/values/strings.xml
cp "$out/answer.dex" apk/classes.dex
(cd apk && aapt package -f -M AndroidManifest.xml -S res -F "$out/answer.apk" && aapt add "$out/answer.apk" classes.dex >/dev/null)

# --- fonts: a two-glyph subset of DejaVu Sans, its WOFF wrappings, a CFF OpenType subset of URW
# Bookman, a collection of both, and Embedded OpenType.
dejavu=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
$py -m fontTools.subset "$dejavu" --text=Ab --no-hinting --desubroutinize --output-file="$out/sans.ttf"
$py -m fontTools.subset "$dejavu" --text=Ab --no-hinting --flavor=woff --output-file="$out/sans.woff"
$py -m fontTools.subset "$dejavu" --text=Ab --no-hinting --flavor=woff2 --output-file="$out/sans.woff2"
$py -m fontTools.subset /usr/share/fonts/opentype/urw-base35/URWBookman-Light.otf --text=Ab --no-hinting \
  --output-file="$out/bookman.otf"
$py -c 'import sys
from fontTools.ttLib import TTFont
from fontTools.ttLib.ttCollection import TTCollection
c = TTCollection(); c.fonts = [TTFont(f) for f in sys.argv[1:3]]; c.save(sys.argv[3])' \
  "$out/sans.ttf" "$out/bookman.otf" "$out/fonts.ttc"
$py -c 'import sys
from fontTools.ttLib import TTFont
f = TTFont(sys.argv[1]); f.sfntVersion = "true"; f.save(sys.argv[2])' "$out/sans.ttf" "$out/sans-apple.ttf"
mkeot "$out/sans.ttf" > "$out/sans.eot"

# --- 3D models: a cube written by hand as OBJ, exported by Assimp in every format it writes.
cat > cube.obj <<'EOF'
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 2 3 4
f 5 6 7 8
f 1 2 6 5
f 4 3 7 8
EOF
assimp export cube.obj "$work/cube-out.obj" -fobj >/dev/null && cp cube-out.obj "$out/cube.obj"
assimp export cube.obj "$out/cube-ascii.stl" -fstl >/dev/null
assimp export cube.obj "$out/cube-binary.stl" -fstlb >/dev/null
assimp export cube.obj "$out/cube-ascii.ply" -fply >/dev/null
assimp export cube.obj "$out/cube-binary.ply" -fplyb >/dev/null
assimp export cube.obj "$out/cube.gltf" -fgltf2 >/dev/null
assimp export cube.obj "$out/cube.glb" -fglb2 >/dev/null
assimp export cube.obj "$out/cube.dae" -fcollada >/dev/null
rm -f "$out"/*.mtl "$out/cube.bin" # the glTF's buffer: detection reads the JSON only
