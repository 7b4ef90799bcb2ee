#!/usr/bin/env bash
# Regenerates the media detection fixtures in test/fixtures/detect/media/ (images beyond the web's,
# audio and video containers, subtitles) with the tools that write each format: FFmpeg,
# ImageMagick, LibreOffice, libjxl (cjxl), jxrlib (JxrEncApp), libicns (png2icns), icoutils
# (icotool), DCMTK (img2dcm), abcMIDI (abc2midi), Musepack (mpcenc) and Gaupol's aeidon. Run from the repository
# root:   bash test/detect/make-fixtures-media.sh [folder]
# Formats no Debian tool writes (tracker modules, DSD, XCF, AMR, KTX, Monkey's Audio, camera raw) come from the test
# data of Debian source packages fetched into that folder first:
# `apt-get source --download-only libopenmpt file shared-mime-info`.
set -euo pipefail

out="$(cd "$(dirname "$0")/../fixtures/detect" && pwd)/media"
mkdir -p "$out"
sources="${1:-}"
if [ -n "$sources" ]; then sources="$(cd "$sources" && pwd)"; fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
ff() { ffmpeg -v error -y -bitexact "$@"; }

# --- images: a 16x16 gradient, written by the tool that writes each format
convert -size 16x16 gradient:red-blue src.png
convert src.png "$out/image.tga"
convert src.png "$out/image.pcx"
convert src.png "$out/image.ppm"
convert src.png -colorspace gray "$out/image.pgm"
convert src.png -monochrome "$out/image.pbm"
convert src.png "$out/image.pam"
convert src.png -define dds:compression=none "$out/image.dds"
convert src.png "$out/image.hdr"
convert src.png -monochrome "$out/image.xbm"
convert src.png -colors 8 "$out/image.xpm"
convert src.png "$out/image.sgi"
convert src.png "$out/image.fits"
convert src.png "$out/image.jp2"
convert src.png "$out/image.j2k"
ff -i src.png -c:v exr -compression 0 "$out/image.exr"
ff -i src.png -c:v qoi "$out/image.qoi"
cjxl -q 90 src.png "$out/image.jxl" >/dev/null 2>&1
cjxl -q 90 --container=1 src.png "$out/image-container.jxl" >/dev/null 2>&1
convert src.png -depth 8 -type TrueColor BMP3:src.bmp && JxrEncApp -i src.bmp -o "$out/image.jxr" >/dev/null
convert -size 16x16 gradient:red-blue PNG32:icon16.png
convert -size 32x32 gradient:red-blue PNG32:icon32.png
png2icns "$out/image.icns" icon16.png icon32.png >/dev/null
icotool -c --cursor --hotspot-x=1 --hotspot-y=1 -o "$out/image.cur" icon16.png
convert src.png -quality 80 src.jpg && img2dcm src.jpg "$out/image.dcm"
# Windows metafiles: LibreOffice Draw exports a drawing (an SVG square) as WMF and EMF.
printf '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="30" height="30" fill="#36c"/></svg>' > shape.svg
for fmt in wmf emf; do
  soffice -env:UserInstallation="file://$work/profile" --headless --convert-to "$fmt" --outdir "$work" shape.svg >/dev/null 2>&1
  cp "shape.$fmt" "$out/drawing.$fmt"
done

# --- audio: a 0.1 s tone
tone=(-f lavfi -i sine=frequency=440:duration=0.1)
ff "${tone[@]}" -ar 8000 -c:a pcm_s16be "$out/audio.aiff"
ff "${tone[@]}" -ar 8000 -c:a pcm_mulaw "$out/audio.au"
ff "${tone[@]}" -ar 22050 -c:a wmav2 -b:a 32k -f asf "$out/audio.wma"
ff "${tone[@]}" -ar 44100 -c:a ac3 -b:a 64k "$out/audio.ac3"
ff "${tone[@]}" -ar 44100 -c:a eac3 -b:a 64k "$out/audio.eac3"
# One DTS frame (512 samples): the encoder's frames are large.
ff -f lavfi -i sine=frequency=440:duration=0.01 -ar 44100 -ac 2 -c:a dca -strict -2 "$out/audio.dts"
ff "${tone[@]}" -ar 8000 -c:a flac "$out/audio.mka"
ff "${tone[@]}" -ar 8000 -c:a pcm_s16le "$out/audio.caf"
ff "${tone[@]}" -ar 8000 -c:a pcm_u8 "$out/audio.voc"
ff "${tone[@]}" -ar 8000 -c:a pcm_s16le "$out/audio.w64"
ff "${tone[@]}" -ar 8000 -c:a wavpack "$out/audio.wv"
# Musepack takes 32 to 48 kHz only.
ff "${tone[@]}" -ar 44100 -c:a pcm_s16le tone.wav
mpcenc --silent --overwrite tone.wav "$out/audio.mpc" >/dev/null 2>&1
# MPEG audio, layer II and layer III, with and without what precedes the first frame.
ff "${tone[@]}" -ar 22050 -c:a mp2 -b:a 32k "$out/audio.mp2"
ff "${tone[@]}" -ar 22050 -c:a libmp3lame -b:a 32k -id3v2_version 0 -write_xing 0 "$out/bare.mp3"
ff "${tone[@]}" -ar 22050 -c:a libmp3lame -b:a 32k -id3v2_version 4 -metadata title=Tone "$out/id3v24.mp3"
# Bytes a stream recorder or a broken tagger leaves before the first frame.
{ printf 'ICY 200 OK\r\n\r\n'; head -c 300 /dev/zero; cat "$out/bare.mp3"; } > "$out/junk-before.mp3"
# An APEv2 tag before the audio (where some taggers put it): written by FFmpeg's APE tagger as a
# whole tag (the WavPack muxer writes one at the end), moved in front of the MP3 frames.
ff "${tone[@]}" -ar 8000 -c:a wavpack -metadata title=Tone tagged.wv
# Layer II frames behind an ID3v2 tag: FFmpeg's MP3 muxer writes the tag but takes only layer III,
# so the tag it wrote for id3v24.mp3 is put in front of its MP2 frames.
python3 - tagged.wv "$out/bare.mp3" "$out/ape-before.mp3" "$out/id3v24.mp3" "$out/audio.mp2" "$out/id3-layer2.mp2" <<'PY'
import sys
read = lambda p: open(p, 'rb').read()
wv, bare, tagged, mp2 = (read(sys.argv[i]) for i in (1, 2, 4, 5))
ape = wv[wv.index(b'APETAGEX'):]  # FFmpeg writes the header-first form, then the footer
open(sys.argv[3], 'wb').write(ape + bare)
size = (tagged[6] << 21) | (tagged[7] << 14) | (tagged[8] << 7) | tagged[9]
open(sys.argv[6], 'wb').write(tagged[:10 + size] + mp2)
PY
# AAC: ADTS frames (audio.aac in the folder above) and the same audio in ADTS behind an ID3 tag.
ff "${tone[@]}" -c:a aac -b:a 24k -f adts -write_id3v2 1 -metadata title=Tone "$out/id3-adts.aac"
printf 'X: 1\nT: Scale\nM: 4/4\nL: 1/8\nK: C\nCDEF GABc|\n' > scale.abc
abc2midi scale.abc -o "$out/scale.mid" >/dev/null

# --- video: a 0.2 s 16x16 test pattern
clip=(-f lavfi -i testsrc=size=16x16:rate=5:duration=0.2)
ff "${clip[@]}" -c:v wmv2 -f asf "$out/video.wmv"
ff "${clip[@]}" -c:v flv1 "$out/video.flv"
ff -f lavfi -i testsrc=size=16x16:rate=25:duration=0.08 -c:v mpeg1video -f mpeg "$out/video.mpg"
ff "${clip[@]}" -c:v mpeg2video -f mpegts "$out/video.m2t"  # 188-byte packets; .ts would read as TypeScript
ff "${clip[@]}" -c:v mpeg2video -f mpegts -mpegts_m2ts_mode 1 "$out/video.m2ts"
ff "${clip[@]}" -c:v mpeg4 -f 3gp "$out/video.3gp"
ff "${clip[@]}" -c:v mpeg4 -f 3g2 "$out/video.3g2"
# Theora's decoder takes 32x32 and up.
ff -f lavfi -i testsrc=size=32x32:rate=5:duration=0.2 -c:v libtheora -q:v 1 "$out/video.ogv"
ff "${clip[@]}" -c:v rv10 -f rm "$out/video.rm"
ff -f lavfi -i testsrc=size=64x64:rate=25:duration=0.04 -c:v mpeg2video -f mxf "$out/video.mxf"
ff -f lavfi -i testsrc=size=720x480:rate=30000/1001:duration=0.02 -pix_fmt yuv411p -c:v dvvideo -f dv "$out/video.dv"
ff -f lavfi -i testsrc=size=8x8:rate=5:duration=0.2 -pix_fmt yuv420p -f yuv4mpegpipe "$out/video.y4m"
ff "${clip[@]}" -c:v flv1 -f swf "$out/video.swf"

# --- subtitles: one SubRip file, written again by FFmpeg in every format it writes
printf '1\n00:00:01,000 --> 00:00:02,500\nHello there.\n\n2\n00:00:03,000 --> 00:00:04,000\nGeneral Kenobi!\n\n' > subs.srt
ff -i subs.srt -c:s subrip "$out/subtitles.srt"
ff -i subs.srt -c:s webvtt "$out/subtitles.vtt"
ff -i subs.srt -c:s ass "$out/subtitles.ass"
ff -i subs.srt -f lrc "$out/lyrics.lrc"
ff -i subs.srt -c:s ttml -f ttml "$out/subtitles.ttml"
# FFmpeg has no MicroDVD encoder and writes SSA as ASS (v4.00+): Gaupol's aeidon library (Debian's
# python3-aeidon) writes MicroDVD and SubStation Alpha v4.00.
/usr/bin/python3 - subs.srt "$out/subtitles.sub" "$out/subtitles.ssa" <<'PY'
import sys, aeidon
project = aeidon.Project()
project.open_main(sys.argv[1], 'utf-8')
for fmt, path in ((aeidon.formats.MICRODVD, sys.argv[2]), (aeidon.formats.SSA, sys.argv[3])):
    project.save_main(aeidon.files.new(fmt, path, 'utf-8'))
PY

if [ -n "$sources" ]; then
  # libopenmpt's own test modules (ProTracker, FastTracker 2, Scream Tracker 3).
  for ext in mod xm s3m; do
    tar -xOzf "$sources"/libopenmpt_*.orig.tar.gz --wildcards "*/test/test.$ext" > "$out/module.$ext"
  done
  # OpenMPT's own format is Impulse Tracker's with extensions: the only IT module a package ships.
  tar -xOzf "$sources"/libopenmpt_*.orig.tar.gz --wildcards '*/test/test.mptm' > "$out/module.mptm"
  # file's test suite: a DSD stream file (DSF).
  tar -xOzf "$sources"/file_*.orig.tar.gz --wildcards '*/tests/dsd64-dsf.testfile' > "$out/dsd64.dsf"
  # shared-mime-info's detection samples (it keeps at most the first 128 KB of a file).
  smi() { tar -xOjf "$sources"/shared-mime-info_*.orig.tar.bz2 --wildcards "*/tests/mime-detection/$1" > "$out/$2"; }
  smi test.xcf image.xcf
  smi sample2.amr audio.amr
  smi rgb-reference.ktx image.ktx
  smi panasonic_lumix_dmc_fz38_05.rw2 camera.rw2
fi

ls -la "$out"
du -sh "$out"
