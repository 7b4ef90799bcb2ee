// Entry of a V8 start-up snapshot of `fileconv detect`, for bench/startup-snapshot.ts only: it
// measures what a snapshot would save; the CLI does not use one (docs/performance.md, CLI start-up).
// Built as CommonJS (node 20's --build-snapshot runs a script, not a module). When
// FILECONV_SNAPSHOT_WARM names a folder, its files are detected once before the snapshot is
// taken, so the snapshot holds the sniffers already compiled.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString, startupSnapshot } from 'node:v8';
import { Command } from 'commander';
import { register } from '../../src/cli/detect.js';
import { detect } from '../../src/detect/index.js';

async function warm(dir: string | undefined): Promise<void> {
  if (!dir) return;
  for (const name of readdirSync(dir)) await detect(join(dir, name));
}

// The builder runs the event loop to its end before it takes the snapshot.
void warm(process.env.FILECONV_SNAPSHOT_WARM).then(() => {
  startupSnapshot.setDeserializeMainFunction(() => {
    // The bench's measure of the snapshot's own start-up: deserialized, nothing run.
    if (process.env.FILECONV_SNAPSHOT_IDLE) return;
    // Run from a snapshot, process.argv is [node, ...arguments]: no script path.
    const args = process.argv.slice(1);
    // As detect-main.ts does for batches of this size.
    if (args.length - 1 <= 10_000) setFlagsFromString('--no-opt');
    const program = new Command().name('fileconv');
    register(program);
    void program.parseAsync(args, { from: 'user' });
  });
});
