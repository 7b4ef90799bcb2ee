import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot, packageVersion } from '../engine/package-files.js';
import { loadConverters } from '../engine/registry.js';
import { openApiDocument } from '../server/http/schemas/document.js';
import { renderClientTypes } from './client-types.js';
import { renderConversionsDoc } from './conversions.js';
import { renderFontsDoc } from './fonts.js';

/**
 * `npm run docs`: writes docs/conversions.md, docs/openapi.json (and the typed client's types made from
 * it, src/client/api-types.ts) and docs/fonts.md, and docs/formats.md when its renderer is present.
 */
async function main(): Promise<void> {
  const root = packageRoot();
  const conversions = join(root, 'docs', 'conversions.md');
  await writeFile(conversions, renderConversionsDoc(await loadConverters()));
  console.log(`wrote ${conversions}`);
  const openapi = join(root, 'docs', 'openapi.json');
  const document = await openApiDocument(packageVersion());
  await writeFile(openapi, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`wrote ${openapi}`);
  const clientTypes = join(root, 'src', 'client', 'api-types.ts');
  await writeFile(clientTypes, await renderClientTypes(document));
  console.log(`wrote ${clientTypes}`);
  const fonts = join(root, 'docs', 'fonts.md');
  await writeFile(fonts, renderFontsDoc());
  console.log(`wrote ${fonts}`);
  // The formats page has its own renderer (written alongside detection); run it when it exists.
  const formatsModule = join(root, 'src', 'docs', 'formats.ts');
  if (existsSync(formatsModule)) {
    const mod = (await import(pathToFileURL(formatsModule).href)) as { renderFormatsDoc?: () => unknown };
    const out = await mod.renderFormatsDoc?.();
    if (typeof out === 'string') {
      await writeFile(join(root, 'docs', 'formats.md'), out);
      console.log(`wrote ${join(root, 'docs', 'formats.md')}`);
    }
  }
}

await main();
