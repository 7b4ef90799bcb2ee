import type { FormatRow } from '../types.js';

// Compressed files and archives beyond ZIP and gzip, packages, disk images, executables, fonts and
// 3D models.
export const BINARY_ROWS: FormatRow[] = [
  // compressed single files
  ['bz2', 'bzip2 file', 'archive', 'application/x-bzip2', ['bz2', 'bzip2', 'tbz2'], ['bzip2']],
  ['xz', 'XZ file', 'archive', 'application/x-xz', ['xz', 'txz']],
  ['zst', 'Zstandard file', 'archive', 'application/zstd', ['zst', 'zstd'], ['zstd']],
  ['lz4', 'LZ4 file', 'archive', 'application/x-lz4'],
  ['lzma', 'LZMA file', 'archive', 'application/x-lzma'],
  ['lz', 'lzip file', 'archive', 'application/x-lzip', ['lz'], ['lzip']],
  ['z', 'Unix compress file', 'archive', 'application/x-compress', ['z', 'taz'], ['compress']],
  // archives and packages
  ['rar', 'RAR archive', 'archive', 'application/vnd.rar'],
  ['cab', 'Microsoft Cabinet archive', 'archive', 'application/vnd.ms-cab-compressed'],
  ['ar', 'Unix ar archive', 'archive', 'application/x-archive', ['ar', 'a', 'lib']],
  ['deb', 'Debian package', 'archive', 'application/vnd.debian.binary-package', ['deb', 'udeb']],
  ['rpm', 'RPM package', 'archive', 'application/x-rpm'],
  ['cpio', 'cpio archive', 'archive', 'application/x-cpio'],
  ['iso', 'ISO 9660 disk image', 'archive', 'application/x-iso9660-image'],
  ['xar', 'XAR archive', 'archive', 'application/x-xar', ['xar', 'pkg']],
  ['lzh', 'LHA archive', 'archive', 'application/x-lzh-compressed', ['lzh', 'lha'], ['lha']],
  ['arj', 'ARJ archive', 'archive', 'application/x-arj'],
  ['jar', 'Java archive', 'archive', 'application/java-archive', ['jar', 'war', 'ear']],
  ['apk', 'Android package', 'archive', 'application/vnd.android.package-archive'],
  ['msi', 'Windows Installer package', 'archive', 'application/x-msi', ['msi', 'msp']],
  // executables and bytecode
  [
    'exe',
    'Windows executable',
    'executable',
    'application/x-msdownload',
    ['exe', 'dll', 'sys', 'scr'],
    ['dll'],
  ],
  ['elf', 'ELF executable', 'executable', 'application/x-elf', ['elf', 'so', 'o'], []],
  ['macho', 'Mach-O executable', 'executable', 'application/x-mach-binary', ['macho', 'dylib'], ['mach-o']],
  ['wasm', 'WebAssembly module', 'executable', 'application/wasm'],
  ['class', 'Java class file', 'executable', 'application/java-vm'],
  ['dex', 'Dalvik executable', 'executable', 'application/vnd.android.dex'],
  // fonts
  ['ttf', 'TrueType font', 'font', 'font/ttf'],
  ['otf', 'OpenType font', 'font', 'font/otf'],
  ['woff', 'WOFF font', 'font', 'font/woff'],
  ['woff2', 'WOFF2 font', 'font', 'font/woff2'],
  ['ttc', 'TrueType font collection', 'font', 'font/collection', ['ttc', 'otc']],
  ['eot', 'Embedded OpenType font', 'font', 'application/vnd.ms-fontobject'],
  // 3D models
  ['stl', 'STL 3D model', 'model', 'model/stl'],
  ['obj', 'Wavefront OBJ model', 'model', 'model/obj'],
  ['glb', 'glTF binary model', 'model', 'model/gltf-binary'],
  ['gltf', 'glTF model', 'model', 'model/gltf+json'],
  ['ply', 'PLY 3D model', 'model', 'model/x-ply'],
  ['3mf', '3D Manufacturing Format', 'model', 'model/3mf'],
  ['dae', 'COLLADA model', 'model', 'model/vnd.collada+xml'],
  ['blend', 'Blender file', 'model', 'application/x-blender'],
];
