import pg from 'pg';

/** How long after a lost listening connection a new one is tried. */
const RECONNECT_MS = 1_000;

/**
 * PostgreSQL LISTEN on one dedicated connection, for signals between the nodes of a deployment.
 * The signals only hasten what each node also finds out by polling (workers ask for jobs, long
 * polls re-read the request), so a lost connection is not an error for anyone: it is reopened
 * after RECONNECT_MS and, until then, polling alone carries on.
 */
export class PgListener {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly listeners = new Map<string, (payload: string) => void>();

  constructor(
    private readonly url: string,
    private readonly onError: (err: Error) => void,
  ) {}

  /** Calls `listener` with the payload of every notification on `channel`; one listener per channel. */
  async listen(channel: string, listener: (payload: string) => void): Promise<void> {
    this.listeners.set(channel, listener);
    if (this.client) await this.client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    else await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'fileconv-listen',
      connectionTimeoutMillis: 10_000,
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => {});
      if (err) this.onError(new Error(`listening for other nodes' signals: ${err.message}; reconnecting`));
      this.reconnectLater();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => this.listeners.get(n.channel)?.(n.payload ?? ''));
    this.client = client;
    try {
      await client.connect();
      if (this.closed) {
        await client.end();
        return;
      }
      for (const channel of this.listeners.keys())
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      lost(err as Error);
    }
  }

  private reconnectLater(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed && !this.client) void this.connect();
    }, RECONNECT_MS);
    this.retry.unref();
  }
}
