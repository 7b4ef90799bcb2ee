// Child process for the quota race test: opens its own connection to the shared database, waits
// for "go", then consumes as fast as it can and reports how many units it was granted.
import Database from 'better-sqlite3';
import { consume } from '../../src/identity/quota.js';

const [dbPath, countText, limitText] = process.argv.slice(2);
const db = new Database(dbPath!);
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 10000');

process.on('message', (msg) => {
  if (msg !== 'go') return;
  let granted = 0;
  for (let i = 0; i < Number(countText); i++) {
    const r = consume(db, { identity: 'ip:203.0.113.7', kind: 'conversions', limit: Number(limitText) });
    if (r.allowed) granted++;
  }
  db.close();
  process.send!({ granted }, () => process.exit(0));
});
process.send!('ready');
