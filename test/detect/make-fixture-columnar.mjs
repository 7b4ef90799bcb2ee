// Writes the same two-column table as an Apache Arrow IPC file (apache-arrow) and as a Parquet file
// (hyparquet-writer). make-fixtures-documents.sh installs both into a throwaway folder and runs this
// there; neither is a dependency of the project.
import { writeFileSync } from 'node:fs';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { parquetWriteBuffer } from 'hyparquet-writer';

const [arrowPath, parquetPath] = process.argv.slice(2);
const names = ['bolt', 'nut'];
const quantities = [12, 7];
writeFileSync(
  arrowPath,
  tableToIPC(tableFromArrays({ name: names, qty: Int32Array.from(quantities) }), 'file'),
);
const parquet = parquetWriteBuffer({
  columnData: [
    { name: 'name', data: names, type: 'STRING' },
    { name: 'qty', data: quantities, type: 'INT32' },
  ],
});
writeFileSync(parquetPath, new Uint8Array(parquet));
