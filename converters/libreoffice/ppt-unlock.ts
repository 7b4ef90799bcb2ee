import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepContext } from '../../src/engine/contract.js';
import { FileconvError } from '../../src/errors/index.js';
import { EngineProcessError, findBinary, runProcess } from '../../src/run/process.js';

/**
 * A password-protected PowerPoint 97-2003 deck (RC4 CryptoAPI) is one LibreOffice cannot open: its
 * PPT import refuses any file with an EncryptedSummary stream, password or not. Apache POI's HSLF
 * reads such a deck with the password and writes it again without one (its pictures and summary
 * decrypted too), and LibreOffice converts that copy.
 */

/** The packages that bring POI and a Java runtime to run it. */
export const PPT_UNLOCK_PACKAGES = ['default-jre-headless', 'libapache-poi-java'];

/** Debian's jars of POI (HSLF is in its scratchpad) and the Commons libraries POI loads. */
const POI_JARS = ['poi', 'poi-scratchpad', 'commons-collections4', 'commons-math3', 'commons-codec'].map(
  (name) => `/usr/share/java/${name}.jar`,
);

/**
 * Reads the password from stdin, all of it (never the command line), and writes the deck again
 * without a password. A wrong password makes HSLF throw EncryptedPowerPointFileException.
 */
const UNLOCK_JAVA = `
import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.poi.hslf.usermodel.HSLFSlideShow;
import org.apache.poi.hslf.usermodel.HSLFSlideShowImpl;
import org.apache.poi.hssf.record.crypto.Biff8EncryptionKey;
import org.apache.poi.poifs.filesystem.POIFSFileSystem;

public class UnlockPpt {
  public static void main(String[] args) throws Exception {
    Biff8EncryptionKey.setCurrentUserPassword(new String(System.in.readAllBytes(), StandardCharsets.UTF_8));
    try (POIFSFileSystem fs = new POIFSFileSystem(new File(args[0]), true);
         HSLFSlideShow show = new HSLFSlideShow(new HSLFSlideShowImpl(fs))) {
      Biff8EncryptionKey.setCurrentUserPassword(null);
      try (OutputStream out = new FileOutputStream(args[1])) {
        show.write(out);
      }
    }
  }
}
`;

/** The class path of POI's jars, when every one is installed. */
export function poiClassPath(): string | undefined {
  return POI_JARS.every((jar) => existsSync(jar)) ? POI_JARS.join(':') : undefined;
}

/** The Java runtime, when it and every POI jar are installed. */
function poiJava(): string | undefined {
  const java = findBinary(['java']);
  return java && poiClassPath() ? java : undefined;
}

/** What `fileconv doctor` says of the step. */
export function pptUnlockStatus(): string {
  return poiJava()
    ? 'password-protected PPT: Apache POI decrypts it for LibreOffice'
    : `password-protected PPT: unavailable, no Java with Apache POI (install ${PPT_UNLOCK_PACKAGES.join(' and ')})`;
}

/** Writes an unencrypted copy of the protected deck `input` into the step's folder and returns it. */
export async function unlockPpt(input: string, password: string, ctx: StepContext): Promise<string> {
  const java = poiJava();
  if (!java)
    throw new FileconvError(
      'CONVERT_FAILED',
      `A password-protected PowerPoint 97-2003 deck is opened by Apache POI, which LibreOffice needs to read it: install ${PPT_UNLOCK_PACKAGES.join(' and ')}.`,
    );
  const source = join(ctx.workDir, 'UnlockPpt.java');
  await writeFile(source, UNLOCK_JAVA);
  const output = join(ctx.workDir, 'unlocked.ppt');
  ctx.log('password-protected PowerPoint 97 deck: Apache POI decrypts it for LibreOffice');
  try {
    // Java's single-file launch compiles the source in memory; the JVM reserves far more address
    // space than it uses, so the usual cap would stop it starting: its heap is capped instead (a
    // deck is read whole; Java's default would be a quarter of the machine's memory).
    await runProcess(
      java,
      [
        '-Xmx768m',
        '-Djava.awt.headless=true',
        '-XX:-UsePerfData',
        '-cp',
        POI_JARS.join(':'),
        source,
        input,
        output,
      ],
      ctx,
      { input: password, limits: { addressSpaceBytes: null } },
    );
  } catch (e) {
    if (e instanceof EngineProcessError && /EncryptedPowerPointFileException/.test(e.output))
      throw new FileconvError('ENCRYPTED_DOCUMENT');
    if (e instanceof EngineProcessError)
      throw new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
    throw e;
  }
  return output;
}
