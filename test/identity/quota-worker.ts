// Child process for the quota race test: opens the shared records database on its own, waits for
// "go", then consumes as fast as it can and reports how many units it was granted.
import { openSqliteRecords } from '../../src/store/sqlite-records.js';

const [dbPath, countText, limitText] = process.argv.slice(2);
const records = openSqliteRecords(dbPath!);

process.on('message', async (msg) => {
  if (msg !== 'go') return;
  let granted = 0;
  for (let i = 0; i < Number(countText); i++) {
    const r = await records.quotas.consume('ip:203.0.113.7', 'conversions', Number(limitText));
    if (r.allowed) granted++;
  }
  await records.close();
  process.send!({ granted }, () => process.exit(0));
});
process.send!('ready');
