// Writes the formats only npm packages write, from one small table: an Apache Arrow IPC file
// (apache-arrow), a Parquet file (hyparquet-writer), and an Excel binary workbook and Lotus 1-2-3
// worksheets (SheetJS xlsx). make-fixtures-documents.sh installs these into a throwaway folder and
// runs this there; none is a dependency of the project. Usage: node make-fixtures-npm.mjs <out dir>
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { parquetWriteBuffer } from 'hyparquet-writer';
import * as XLSX from 'xlsx';

const out = process.argv[2];
const names = ['bolt', 'nut'];
const quantities = [12, 7];
const arrow = tableToIPC(tableFromArrays({ name: names, qty: Int32Array.from(quantities) }), 'file');
writeFileSync(join(out, 'items.arrow'), arrow);
const parquet = parquetWriteBuffer({
  columnData: [
    { name: 'name', data: names, type: 'STRING' },
    { name: 'qty', data: quantities, type: 'INT32' },
  ],
});
writeFileSync(join(out, 'items.parquet'), new Uint8Array(parquet));

const book = XLSX.utils.book_new();
const rows = [['name', 'qty'], ...names.map((name, i) => [name, quantities[i]])];
XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), 'Items');
for (const [file, bookType] of [
  ['sheet.xlsb', 'xlsb'],
  ['sheet.wk1', 'wk1'],
  ['sheet.wk3', 'wk3'],
]) {
  writeFileSync(join(out, file), XLSX.write(book, { bookType, type: 'buffer', compression: true }));
}
