import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * The jars of Debian's Apache POI (libapache-poi-java) that HSLF, its PowerPoint 97 part, needs to
 * write a deck: POI itself, its scratchpad (HSLF) and the Commons libraries POI loads on the way.
 */
const POI_JARS = ['poi', 'poi-scratchpad', 'commons-collections4', 'commons-math3', 'commons-codec'].map(
  (name) => `/usr/share/java/${name}.jar`,
);

/** The class path for the writer, when a Java runtime and every POI jar are installed. */
export const poiClassPath =
  spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0 &&
  POI_JARS.every((jar) => existsSync(jar))
    ? POI_JARS.join(':')
    : undefined;

/**
 * One slide with the text in SLIDE_TEXT, saved by POI's HSLF with the password in LOCKED_PASSWORD
 * (both from the environment, never the command line). A current user password set before `write`
 * makes HSLF encrypt the document streams with RC4 CryptoAPI under a CryptSession10Container, what
 * PowerPoint 97-2003 writes; LibreOffice saves no encrypted PPT, so Office's other library writes it.
 */
const WRITER_JAVA = `
import java.awt.geom.Rectangle2D;
import java.io.FileOutputStream;
import java.io.OutputStream;
import org.apache.poi.hslf.usermodel.HSLFSlide;
import org.apache.poi.hslf.usermodel.HSLFSlideShow;
import org.apache.poi.hslf.usermodel.HSLFTextBox;
import org.apache.poi.hssf.record.crypto.Biff8EncryptionKey;

public class LockedPpt {
  public static void main(String[] args) throws Exception {
    try (HSLFSlideShow show = new HSLFSlideShow()) {
      HSLFSlide slide = show.createSlide();
      HSLFTextBox box = slide.createTextBox();
      box.setText(System.getenv("SLIDE_TEXT"));
      box.setAnchor(new Rectangle2D.Double(50, 50, 600, 100));
      Biff8EncryptionKey.setCurrentUserPassword(System.getenv("LOCKED_PASSWORD"));
      try (OutputStream out = new FileOutputStream(args[0])) {
        show.write(out);
      } finally {
        Biff8EncryptionKey.setCurrentUserPassword(null);
      }
    }
  }
}
`;

/** Writes `dir`/locked.ppt, one slide saying `text` under `password`, and returns its path. */
export async function makeLockedPpt(dir: string, password: string, text: string): Promise<string> {
  if (!poiClassPath) throw new Error('no Java with Apache POI');
  mkdirSync(dir, { recursive: true });
  const source = join(dir, 'LockedPpt.java');
  writeFileSync(source, WRITER_JAVA);
  const out = join(dir, 'locked.ppt');
  // Java 11's single-file launch compiles the source in memory: no javac, no class files.
  await execFileAsync('java', ['-Djava.awt.headless=true', '-cp', poiClassPath, source, out], {
    timeout: 120_000,
    env: { ...process.env, HOME: dir, SLIDE_TEXT: text, LOCKED_PASSWORD: password },
  });
  if (!existsSync(out)) throw new Error('Apache POI saved no locked.ppt');
  return out;
}
