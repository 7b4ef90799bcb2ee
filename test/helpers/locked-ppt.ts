import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { poiClassPath as productPoiClassPath } from '../../converters/libreoffice/ppt-unlock.js';

const execFileAsync = promisify(execFile);

/** The class path for the writer: POI's jars as fileconv finds them, when Java is installed too. */
export const poiClassPath =
  spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0 ? productPoiClassPath() : undefined;

/**
 * One slide with the text in SLIDE_TEXT and the PNG at SLIDE_PICTURE, saved by POI's HSLF with the
 * password in LOCKED_PASSWORD (all from the environment; the password never on the command line).
 * A current user password set before `write` makes HSLF encrypt the document and its pictures with
 * RC4 CryptoAPI under a CryptSession10Container, what PowerPoint 97-2003 writes; LibreOffice saves
 * no encrypted PPT, so another library writes it.
 */
const WRITER_JAVA = `
import java.awt.geom.Rectangle2D;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.File;
import org.apache.poi.hslf.usermodel.HSLFPictureData;
import org.apache.poi.hslf.usermodel.HSLFPictureShape;
import org.apache.poi.hslf.usermodel.HSLFSlide;
import org.apache.poi.hslf.usermodel.HSLFSlideShow;
import org.apache.poi.hslf.usermodel.HSLFTextBox;
import org.apache.poi.hssf.record.crypto.Biff8EncryptionKey;
import org.apache.poi.sl.usermodel.PictureData.PictureType;

public class LockedPpt {
  public static void main(String[] args) throws Exception {
    try (HSLFSlideShow show = new HSLFSlideShow()) {
      HSLFSlide slide = show.createSlide();
      HSLFTextBox box = slide.createTextBox();
      box.setText(System.getenv("SLIDE_TEXT"));
      box.setAnchor(new Rectangle2D.Double(50, 50, 600, 100));
      HSLFPictureData png = show.addPicture(new File(System.getenv("SLIDE_PICTURE")), PictureType.PNG);
      HSLFPictureShape picture = slide.createPicture(png);
      picture.setAnchor(new Rectangle2D.Double(50, 200, 160, 160));
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

/**
 * Writes `dir`/locked.ppt, one slide saying `text` and showing the PNG `picture`, under
 * `password`, and returns its path.
 */
export async function makeLockedPpt(
  dir: string,
  password: string,
  text: string,
  picture: string,
): Promise<string> {
  if (!poiClassPath) throw new Error('no Java with Apache POI');
  mkdirSync(dir, { recursive: true });
  const source = join(dir, 'LockedPpt.java');
  writeFileSync(source, WRITER_JAVA);
  const out = join(dir, 'locked.ppt');
  // Java 11's single-file launch compiles the source in memory: no javac, no class files.
  await execFileAsync('java', ['-Djava.awt.headless=true', '-cp', poiClassPath, source, out], {
    timeout: 120_000,
    env: { ...process.env, HOME: dir, SLIDE_TEXT: text, SLIDE_PICTURE: picture, LOCKED_PASSWORD: password },
  });
  if (!existsSync(out)) throw new Error('Apache POI saved no locked.ppt');
  return out;
}
