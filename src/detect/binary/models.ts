import { CONFIDENCE, type Finding } from '../types.js';

// 3D models. Several are text (ASCII STL and PLY, OBJ, glTF's JSON, COLLADA's XML) that the text
// sniffers would call txt, json or xml, so they are told here first, from their required headers.

/** How much of a text model's head is read for its keywords. */
const TEXT_WINDOW = 4096;

/** The model format of a head, or undefined. `size` is the whole file's length. */
export function matchModel(head: Buffer, size: number): Finding | undefined {
  const id = binaryModel(head, size) ?? textModel(head.toString('latin1', 0, TEXT_WINDOW));
  if (!id) return undefined;
  return { id, confidence: id === 'obj' ? CONFIDENCE.TEXT : CONFIDENCE.SIGNATURE };
}

function binaryModel(h: Buffer, size: number): string | undefined {
  // glTF binary: magic, version 1 or 2, and the container's length equal to the file's.
  if (h.toString('latin1', 0, 4) === 'glTF' && h.length >= 12) {
    const version = h.readUInt32LE(4);
    if ((version === 1 || version === 2) && h.readUInt32LE(8) === size) return 'glb';
  }
  // Blender: `BLENDER`, pointer size (`_` 32-bit, `-` 64-bit), byte order and a 3-digit version;
  // files from Blender 4.x on may open with the newer `BLENDER17-01v0405` form.
  if (/^BLENDER([_-][vV]\d{3}|\d\d-\d\d[vV]\d{4})/.test(h.toString('latin1', 0, 17))) return 'blend';
  // Binary STL has no magic (its 80-byte header is free text, often "solid ..."): the triangle
  // count after it must account for the file's length exactly, 50 bytes a triangle.
  if (size >= 84 && h.length >= 84 && 84 + 50 * h.readUInt32LE(80) === size) return 'stl';
  return undefined;
}

function textModel(text: string): string | undefined {
  // PLY: `ply` on the first line, then the format line (ascii, or a binary PLY's text header).
  if (
    /^ply\r?\n(comment[^\n]*\n|obj_info[^\n]*\n)*format (ascii|binary_little_endian|binary_big_endian) 1\.0/.test(
      text,
    )
  )
    return 'ply';
  if (/^\s*solid\b[^\n]*\r?\n\s*(facet normal|endsolid)\b/.test(text)) return 'stl';
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<COLLADA\b[^>]*collada\.org/.test(text)) return 'dae';
  if (/^\s*\{/.test(text) && /"asset"\s*:\s*\{[^}]*"version"\s*:\s*"[12]\.\d"/.test(text)) return 'gltf';
  return isObj(text) ? 'obj' : undefined;
}

/** OBJ statements: every line is a comment or starts with one of the format's keywords. */
const OBJ_LINE =
  /^(#.*|\s*|(v|vt|vn|vp|f|l|p|g|o|s|mtllib|usemtl|cstype|deg|curv|curv2|surf|parm|trim|hole|end)(\s.*)?)$/;
const OBJ_VERTEX = /^v(\s+-?\d+(\.\d+)?([eE][-+]?\d+)?){3,4}\s*$/;

/** Wavefront OBJ: only OBJ statements, with at least three vertices and a face or line. */
function isObj(text: string): boolean {
  const lines = text.split(/\r?\n/);
  // The last line of a window may be cut short.
  if (lines.length > 1 && text.length >= TEXT_WINDOW) lines.pop();
  let vertices = 0;
  let elements = 0;
  for (const line of lines) {
    if (!OBJ_LINE.test(line)) return false;
    if (OBJ_VERTEX.test(line)) vertices++;
    else if (/^[flp]\s/.test(line)) elements++;
  }
  return vertices >= 3 && elements >= 1;
}
