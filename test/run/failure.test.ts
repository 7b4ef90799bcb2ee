import { describe, expect, it } from 'vitest';
import { FileconvError } from '../../src/errors/index.js';
import { failureText, stepFailure } from '../../src/run/failure.js';
import { EngineProcessError } from '../../src/run/process.js';

const TRACEBACK = `Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/ocrmypdf/_sync.py", line 388, in run_pipeline
    exec_concurrent(context, executor)
ocrmypdf.exceptions.SubprocessOutputError: <Page object at 0x7f3a2c1d5e90> failed`;

describe('what a client reads of an engine failure', () => {
  it('an OCRmyPDF traceback becomes how the engine stopped, without its text or addresses', () => {
    const e = new EngineProcessError('ocrmypdf', 15, undefined, TRACEBACK, '');
    expect(e.message).toMatch(/0x7f3a2c1d5e90/); // the raw message still holds it; the client's text must not
    expect(failureText(e)).toBe('ocrmypdf stopped with exit code 15');
    const failed = stepFailure([{ engine: 'ocrmypdf', error: e }], 'pdf', 'pdf');
    expect(failed.code).toBe('CONVERT_FAILED');
    expect(failed.message).not.toMatch(/Traceback|0x[0-9a-f]+|_sync\.py/);
  });

  it('keeps our own messages, without memory addresses', () => {
    expect(failureText(new Error('object at 0x7f3a2c1d5e90 was lost'))).toBe('object at <address> was lost');
  });

  it('an engine that finds the request wrong makes the step answer INVALID_REQUEST', () => {
    const refused = new FileconvError('INVALID_REQUEST', 'option pages 9: the document has 6 pages');
    const failed = stepFailure(
      [
        { engine: 'qpdf', error: refused },
        { engine: 'ghostscript', error: new FileconvError('MALFORMED_DOCUMENT') },
      ],
      'pdf',
      'pdf',
    );
    expect(failed).toBe(refused);
  });
});
