import { describe, expect, it } from 'vitest';
import {
  FALLBACK_FILENAME,
  filenameFromContentDisposition,
  filenameFromUrl,
  sanitizeFilename,
} from '../../src/intake/filename.js';

describe('filenameFromContentDisposition', () => {
  it.each([
    ['attachment; filename="report.pdf"', 'report.pdf'],
    ['attachment; filename=report.pdf', 'report.pdf'],
    ['attachment; filename="a \\"quoted\\" name.txt"', 'a "quoted" name.txt'],
    [`attachment; filename="fallback.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`, 'résumé.pdf'],
    [`attachment; filename*=utf-8'en'%E2%82%AC%20rates.csv`, '€ rates.csv'],
    [`attachment; filename*=iso-8859-1''caf%E9.txt`, 'café.txt'],
    [`attachment; filename*=koi8-r''x.txt; filename="plain.txt"`, 'plain.txt'],
    ['ATTACHMENT; FILENAME="UPPER.PDF"', 'UPPER.PDF'],
    ['inline', undefined],
    ['', undefined],
    [null, undefined],
  ])('%s -> %s', (header, expected) => {
    expect(filenameFromContentDisposition(header)).toBe(expected);
  });
});

describe('filenameFromUrl', () => {
  it('takes the last path segment, decoded', () => {
    expect(filenameFromUrl(new URL('https://x.test/a/b/My%20File.docx?x=1'))).toBe('My File.docx');
    expect(filenameFromUrl(new URL('https://x.test/a/'))).toBeUndefined();
    expect(filenameFromUrl(new URL('https://x.test/bad%E0%A4%A.txt'))).toBe('bad%E0%A4%A.txt');
  });
});

describe('sanitizeFilename', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\system.ini', 'system.ini'],
    ['..', FALLBACK_FILENAME],
    ['.', FALLBACK_FILENAME],
    ['', FALLBACK_FILENAME],
    [undefined, FALLBACK_FILENAME],
    ['.bashrc', 'bashrc'],
    ['a\u0000b.txt', 'ab.txt'],
    ['line\r\nbreak.txt', 'line break.txt'],
    ['bell\u0007.txt', 'bell.txt'],
    ['tab\there.txt', 'tab here.txt'],
    ['what?.txt', 'what_.txt'],
    ['trailing dots...', 'trailing dots'],
    ['/', FALLBACK_FILENAME],
    ['dir/', FALLBACK_FILENAME],
  ])('%j -> %j', (input, expected) => {
    expect(sanitizeFilename(input)).toBe(expected);
  });

  it('names what has nothing usable left after the fallback it is given', () => {
    expect(sanitizeFilename('../..', 'upload')).toBe('upload');
    expect(sanitizeFilename(undefined, 'upload')).toBe('upload');
    expect(sanitizeFilename('..\\..\\win\u0000dows\u0007.csv', 'upload')).toBe('windows.csv');
    expect(sanitizeFilename(`${'x'.repeat(300)}.csv`, 'upload')).toBe(`${'x'.repeat(196)}.csv`);
  });

  it('caps the length in bytes and keeps the extension', () => {
    const long = `${'é'.repeat(300)}.pdf`;
    const safe = sanitizeFilename(long);
    expect(Buffer.byteLength(safe)).toBeLessThanOrEqual(200);
    expect(safe.endsWith('.pdf')).toBe(true);
    expect(safe).not.toContain('\ufffd');
  });
});
