import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { replacementPairs } from '../../src/fonts/catalog.js';
import { installedFamilies } from '../../src/fonts/check.js';
import { escapeXml } from '../../src/fonts/fontconfig.js';

/**
 * A fresh LibreOffice user profile for one run. Each run gets its own so parallel runs never fight
 * over a profile lock, and the profile is locked down before LibreOffice first reads it: documents
 * come from strangers, so no macros, no link updates, no recalculation that could call out
 * (WEBSERVICE), no VBA, and no network.
 */

type Setting = [path: string, name: string, value: string];

const LOCKED_DOWN: Setting[] = [
  // 3 = very high: only macros from trusted locations, and there are none.
  ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', '3'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', 'true'],
  // Writer link update mode: 0 = never.
  ['/org.openoffice.Office.Writer/Content/Update', 'Link', '0'],
  // Calc link update mode: 1 = never (0 always, 2 on request).
  ['/org.openoffice.Office.Calc/Content/Update', 'Link', '1'],
  // Recalculation on load: 1 = never, so stored results are shown and no formula runs.
  ['/org.openoffice.Office.Calc/Formula/Load', 'OOXMLRecalcMode', '1'],
  ['/org.openoffice.Office.Calc/Formula/Load', 'ODFRecalcMode', '1'],
  ['/org.openoffice.Office.Writer/Filter/Import/VBA', 'Load', 'false'],
  ['/org.openoffice.Office.Writer/Filter/Import/VBA', 'Executable', 'false'],
  ['/org.openoffice.Office.Calc/Filter/Import/VBA', 'Load', 'false'],
  ['/org.openoffice.Office.Calc/Filter/Import/VBA', 'Executable', 'false'],
  ['/org.openoffice.Office.Impress/Filter/Import/VBA', 'Load', 'false'],
  // LibreOffice fetches images an HTML or office file links to. It has no switch to stop that, so
  // every http(s)/ftp fetch is sent to a proxy on the discard port, where it fails at once.
  ['/org.openoffice.Inet/Settings', 'ooInetProxyType', '2'],
  ...(['HTTP', 'HTTPS', 'FTP'] as const).flatMap((scheme): Setting[] => [
    ['/org.openoffice.Inet/Settings', `ooInet${scheme}ProxyName`, '127.0.0.1'],
    ['/org.openoffice.Inet/Settings', `ooInet${scheme}ProxyPort`, '9'],
  ]),
  ['/org.openoffice.Inet/Settings', 'ooInetNoProxy', ''],
];

const FONT_PAIRS = '/org.openoffice.Office.Common/Font/Substitution/FontPairs';

const prop = (name: string, value: string) =>
  `<prop oor:name="${name}" oor:op="fuse"><value>${escapeXml(value)}</value></prop>`;

/**
 * LibreOffice's font replacement table (Tools > Options > Fonts): each font documents name that
 * this machine lacks, drawn with its closest installed face rather than the first face fontconfig
 * ranks. LibreOffice applies only rows marked Always, so fonts that are really installed are left
 * out of the table instead.
 */
export function fontReplacementItems(installed: ReadonlySet<string>): string[] {
  const pairs = replacementPairs().filter(([font]) => !installed.has(font));
  const table = pairs.map(
    ([font, substitute], i) =>
      `<item oor:path="${FONT_PAIRS}"><node oor:name="_${i}" oor:op="replace">${prop('Always', 'true')}${prop('OnScreenOnly', 'false')}${prop('ReplaceFont', font)}${prop('SubstituteFont', substitute)}</node></item>`,
  );
  return [
    `<item oor:path="/org.openoffice.Office.Common/Font/Substitution">${prop('Replacement', 'true')}</item>`,
    ...table,
  ];
}

export function registryModifications(
  installedFonts: ReadonlySet<string>,
  settings: readonly Setting[] = LOCKED_DOWN,
): string {
  const items = [
    ...settings.map(([path, name, value]) => `<item oor:path="${path}">${prop(name, value)}</item>`),
    ...fontReplacementItems(installedFonts),
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    ...items,
    '</oor:items>',
    '',
  ].join('\n');
}

let families: Promise<ReadonlySet<string>> | undefined;

/** Installed font families, listed once per process (when fc-list fails: none, so every row applies). */
function familiesOnThisMachine(): Promise<ReadonlySet<string>> {
  families ??= installedFamilies().then((f) => (typeof f === 'string' ? new Set<string>() : f));
  return families;
}

/** Creates `<dir>/user/registrymodifications.xcu` and returns the -env:UserInstallation value. */
export async function createLockedProfile(dir: string): Promise<string> {
  await mkdir(join(dir, 'user'), { recursive: true });
  const xcu = registryModifications(await familiesOnThisMachine());
  await writeFile(join(dir, 'user', 'registrymodifications.xcu'), xcu);
  return pathToFileURL(dir).href;
}
