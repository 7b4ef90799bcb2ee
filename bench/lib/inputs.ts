/** Bench inputs, made at bench time. */
import { writeFileSync } from 'node:fs';
import sharp from 'sharp';

/**
 * A photo-like PNG: smooth gradients plus grain, so it neither compresses to nothing nor is pure
 * noise. 1620x1080 comes out near 5 MB.
 */
export async function makePhotoPng(path: string, width = 1620, height = 1080): Promise<void> {
  const raw = Buffer.alloc(width * height * 3);
  let seed = 12345;
  const grain = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >> 16) % 24;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = Math.min(255, ((x / width) * 200 + grain()) | 0);
      raw[i + 1] = Math.min(255, ((y / height) * 180 + 40 * Math.sin(x / 90) + 40 + grain()) | 0);
      raw[i + 2] = Math.min(255, (((x + y) / (width + height)) * 160 + grain()) | 0);
    }
  }
  await sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toFile(path);
}

/** A CSV of `rows` rows of mixed text and numbers. */
export function makeCsv(path: string, rows: number): void {
  const lines = ['id,name,city,quantity,price,note'];
  for (let i = 0; i < rows; i++)
    lines.push(
      `${i},item ${i},"City ${i % 97}, Region ${i % 7}",${(i * 7) % 1000},${((i * 13) % 10000) / 100},"note ${i}"`,
    );
  writeFileSync(path, `${lines.join('\n')}\n`);
}
