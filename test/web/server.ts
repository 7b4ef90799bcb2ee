// Starts the real HTTP server in this process, on a free port, with its data in a temp folder.
import { type RawServeOptions, resolveServeConfig } from '../../src/server/config.js';
import { publicUrlIntake } from '../../src/server/http/url-intake.js';
import { startServer as startHttpServer } from '../../src/server/server.js';

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

export async function startServer(dataDir: string, options: RawServeOptions = {}): Promise<RunningServer> {
  // An empty environment so a developer's FILECONV_* settings do not leak into the test.
  const config = resolveServeConfig(
    { host: '127.0.0.1', port: '0', dataDir, concurrency: '2', ...options },
    {},
  );
  const server = await startHttpServer(config, {
    urlIntake: publicUrlIntake(config.maxUpload),
    log: () => {},
  });
  return { url: server.url, stop: () => server.shutdown() };
}
