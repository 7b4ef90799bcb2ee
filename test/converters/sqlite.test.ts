import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDataPool } from '../../converters/data.js';
import { runConversion } from '../../src/run/runner.js';
import { tempDir } from '../server/helpers.js';

let dir: string;
let shop: string;
let single: string;

/** A database as an application leaves one: two tables, a view, an index, Cyrillic text, a blob, a big id. */
function makeShop(path: string): void {
  const db = new Database(path);
  db.exec(`
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
    CREATE TABLE orders (id INTEGER, customer INTEGER, total REAL, stamp BLOB);
    CREATE INDEX orders_customer ON orders(customer);
    CREATE VIEW big AS SELECT * FROM orders WHERE total > 10;
    INSERT INTO customers VALUES (1, 'Анна', 'Москва'), (2, 'Zoë', 'Paris');
    INSERT INTO orders VALUES (9007199254740993, 1, 12.5, x'0102'), (2, 2, 3.25, NULL);
  `);
  db.close();
}

beforeAll(() => {
  dir = tempDir();
  shop = join(dir, 'shop.sqlite');
  makeShop(shop);
  single = join(dir, 'notes.db');
  const db = new Database(single);
  db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('первая'), ('second');");
  db.close();
});

afterAll(async () => {
  await closeDataPool();
  rmSync(dir, { recursive: true, force: true });
});

const convert = (input: string, to: string, baseName: string) =>
  runConversion({ input, from: 'sqlite', to, outDir: join(dir, 'out'), baseName });

describe('SQLite databases to tables', () => {
  it('writes one XLSX with a sheet per table, views and indexes left out', async () => {
    const { files } = await convert(shop, 'xlsx', 'shop');
    expect(files).toHaveLength(1);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(files[0]!.path);
    expect(book.worksheets.map((s) => s.name)).toEqual(['customers', 'orders']);
    const values = (name: string) =>
      book
        .getWorksheet(name)!
        .getSheetValues()
        .flatMap((r) => (Array.isArray(r) ? [r.slice(1)] : []));
    expect(values('customers')).toEqual([
      ['id', 'name', 'city'],
      [1, 'Анна', 'Москва'],
      [2, 'Zoë', 'Paris'],
    ]);
    expect(values('orders')[1]).toEqual(['9007199254740993', 1, 12.5, 'AQI=']);
  });

  it('writes one CSV per table, numbered in table-name order', async () => {
    const { files } = await convert(shop, 'csv', 'shop');
    expect(files.map((f) => [f.name, basename(f.path)])).toEqual([
      ['csv-1', 'shop-1.csv'],
      ['csv-2', 'shop-2.csv'],
    ]);
    expect(readFileSync(files[0]!.path, 'utf8')).toMatch(/^id,name,city\r?\n1,Анна,Москва\r?\n2,Zoë,Paris/);
    expect(readFileSync(files[1]!.path, 'utf8')).toMatch(
      /^id,customer,total,stamp\r?\n9007199254740993,1,12.5,AQI=/,
    );
  });

  it('writes a one-table database as one JSON file', async () => {
    const { files } = await convert(single, 'json', 'notes');
    expect(files).toHaveLength(1);
    expect(JSON.parse(readFileSync(files[0]!.path, 'utf8'))).toEqual([
      { body: 'первая' },
      { body: 'second' },
    ]);
  });

  it('refuses a damaged database as MALFORMED_DOCUMENT', async () => {
    const bad = join(dir, 'bad.sqlite');
    const bytes = readFileSync(single);
    bytes.fill(0xee, 100);
    writeFileSync(bad, bytes);
    await expect(convert(bad, 'csv', 'bad')).rejects.toMatchObject({ code: 'MALFORMED_DOCUMENT' });
  });
});
