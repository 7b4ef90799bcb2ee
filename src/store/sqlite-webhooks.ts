import type Database from 'better-sqlite3';
import { statements } from './sqlite.js';

/** A convert request's webhook as filed: `baseUrl` builds the download links of the body it sends. */
export interface StoredWebhook {
  requestId: string;
  url: string;
  events: string[];
  baseUrl: string;
}

/** Webhooks in the metadata database, beside their requests, so a restart does not lose them. */
export class SqliteWebhookStore {
  private readonly sql: (text: string) => Database.Statement;

  constructor(db: Database.Database) {
    this.sql = statements(db);
  }

  save(w: StoredWebhook): void {
    this.sql('INSERT INTO webhooks (request_id, url, events, base_url) VALUES (?, ?, ?, ?)').run(
      w.requestId,
      w.url,
      JSON.stringify(w.events),
      w.baseUrl,
    );
  }

  get(requestId: string): StoredWebhook | undefined {
    const row = this.sql('SELECT url, events, base_url FROM webhooks WHERE request_id = ?').get(requestId) as
      | { url: string; events: string; base_url: string }
      | undefined;
    if (!row) return undefined;
    return { requestId, url: row.url, events: JSON.parse(row.events) as string[], baseUrl: row.base_url };
  }
}
