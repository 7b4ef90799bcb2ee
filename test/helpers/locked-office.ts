import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { processesMentioning } from './office.js';

/** Debian's Python, or the first on the PATH, that can import `module`, if any. */
function pythonWith(module: string): string | undefined {
  return ['/usr/bin/python3', 'python3'].find(
    (python) => spawnSync(python, ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0,
  );
}

/** A Python that has LibreOffice's UNO bindings (Debian's python3-uno), if any. */
export const unoPython = pythonWith('uno');

/** A Python with msoffcrypto-tool (python3-msoffcrypto-tool), which reads Office encryption on its own. */
export const msoffcryptoPython = pythonWith('msoffcrypto');

/** The words each locked document holds, to check a conversion opened it. */
export const LOCKED_TEXT = {
  writer: 'Quarterly locked report',
  calc: 'Quarterly locked cell',
  impress: 'Quarterly locked slide',
};

export type LockedFormat = 'docx' | 'xlsx' | 'pptx' | 'doc' | 'xls' | 'odt' | 'ods' | 'odp';

/**
 * Documents saved with a password by LibreOffice itself, through its UNO API (`soffice
 * --convert-to` cannot set one): ODF with its own encryption (AES-256), Word and Excel 97 with
 * their RC4 encryption, and DOCX, XLSX and PPTX as encrypted packages in a compound file
 * (ECMA-376 Standard encryption, what LibreOffice writes; Office writes Agile). The password goes
 * through the environment, not the command line. PowerPoint 97 is left out: LibreOffice saves no
 * encrypted PPT (test/helpers/locked-ppt.ts has Apache POI write one).
 */
const SAVE_LOCKED_PY = `
import os, sys, subprocess, time, uno
from com.sun.star.beans import PropertyValue, NamedValue
out, profile = sys.argv[1], sys.argv[2]
password = os.environ['LOCKED_PASSWORD']
texts = dict(writer=os.environ['TEXT_WRITER'], calc=os.environ['TEXT_CALC'], impress=os.environ['TEXT_IMPRESS'])
def pv(n, v):
    p = PropertyValue(); p.Name = n; p.Value = v; return p
def nv(n, v):
    p = NamedValue(); p.Name = n; p.Value = v; return p
pipe = 'fileconv_locked_%d_%d' % (os.getpid(), int(time.time() * 1000))
proc = subprocess.Popen(['soffice', '--headless', '--norestore', '--nologo', '--nodefault',
                         '-env:UserInstallation=' + profile, '--accept=pipe,name=%s;urp;' % pipe])
try:
    ctx = uno.getComponentContext()
    resolver = ctx.ServiceManager.createInstanceWithContext('com.sun.star.bridge.UnoUrlResolver', ctx)
    for _ in range(240):
        try:
            remote = resolver.resolve('uno:pipe,name=%s;urp;StarOffice.ComponentContext' % pipe); break
        except Exception:
            time.sleep(0.25)
    desktop = remote.ServiceManager.createInstanceWithContext('com.sun.star.frame.Desktop', remote)
    jobs = [('writer', 'swriter', [('docx', 'MS Word 2007 XML'), ('doc', 'MS Word 97'), ('odt', 'writer8')]),
            ('calc', 'scalc', [('xlsx', 'Calc MS Excel 2007 XML'), ('xls', 'MS Excel 97'), ('ods', 'calc8')]),
            ('impress', 'simpress', [('pptx', 'Impress MS PowerPoint 2007 XML'), ('odp', 'impress8')])]
    for kind, factory, outs in jobs:
        doc = desktop.loadComponentFromURL('private:factory/' + factory, '_blank', 0, (pv('Hidden', True),))
        if kind == 'writer':
            doc.Text.setString(texts[kind])
        elif kind == 'calc':
            doc.Sheets.getByIndex(0).getCellByPosition(0, 0).setString(texts[kind])
        else:
            shape = doc.createInstance('com.sun.star.drawing.TextShape')
            doc.DrawPages.getByIndex(0).add(shape)
            shape.setSize(uno.createUnoStruct('com.sun.star.awt.Size', 20000, 3000))
            shape.setPosition(uno.createUnoStruct('com.sun.star.awt.Point', 1000, 1000))
            shape.setString(texts[kind])
        for ext, filt in outs:
            props = [pv('FilterName', filt), pv('Overwrite', True)]
            if ext.endswith('x'):
                data = (nv('OOXPassword', password), nv('CryptoType', 'Standard'))
                props.append(pv('EncryptionData', uno.Any('[]com.sun.star.beans.NamedValue', data)))
            else:
                props.append(pv('Password', password))
            doc.storeToURL(uno.systemPathToFileUrl(out + '/locked.' + ext), tuple(props))
        doc.close(True)
    try: desktop.terminate()
    except Exception: pass
    proc.wait(timeout=30)
finally:
    if proc.poll() is None: proc.kill()
`;

/** Makes the locked documents in `dir` (locked.docx, locked.xls...) and returns their paths. */
export function makeLockedOffice(dir: string, password: string): Record<LockedFormat, string> {
  if (!unoPython) throw new Error('no Python with the uno module');
  const out = join(dir, 'locked');
  mkdirSync(out, { recursive: true });
  const profile = join(dir, 'locked-profile');
  try {
    spawnSync(unoPython, ['-c', SAVE_LOCKED_PY, out, pathToFileURL(profile).href], {
      stdio: 'ignore',
      timeout: 180_000,
      env: {
        ...process.env,
        HOME: dir,
        LOCKED_PASSWORD: password,
        TEXT_WRITER: LOCKED_TEXT.writer,
        TEXT_CALC: LOCKED_TEXT.calc,
        TEXT_IMPRESS: LOCKED_TEXT.impress,
      },
    });
  } finally {
    for (const line of processesMentioning(profile)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
  }
  const formats: LockedFormat[] = ['docx', 'xlsx', 'pptx', 'doc', 'xls', 'odt', 'ods', 'odp'];
  const paths = Object.fromEntries(formats.map((f) => [f, join(out, `locked.${f}`)]));
  const missing = formats.filter((f) => !existsSync(paths[f] as string));
  if (missing.length) throw new Error(`LibreOffice saved no locked ${missing.join(', ')}`);
  return paths as Record<LockedFormat, string>;
}
