import type { ApiErrorBody } from './api.js';
import { formatLocalTime } from './format.js';

/** What went wrong and what the visitor can do about it, in words a person would use. */
export interface Explanation {
  title: string;
  what: string;
  todo: string;
}

const UPLOAD_LIMIT = '200 MB';

export function explain(error: ApiErrorBody, status = 0): Explanation {
  const reset = error.reset_at ? formatLocalTime(error.reset_at) : null;
  switch (error.code) {
    case 'QUOTA_EXCEEDED':
      return {
        title: 'Daily limit reached',
        what: 'You have used all of today’s free conversions or file checks.',
        todo: reset
          ? `It resets at ${reset} (your local time). An API key gives larger quotas.`
          : 'It resets at midnight UTC. An API key gives larger quotas.',
      };
    case 'RATE_LIMITED':
      return {
        title: 'Too many requests at once',
        what: 'More than 30 uploads or conversions were sent in one minute.',
        todo: reset ? `Try again after ${reset} (your local time).` : 'Wait a minute and try again.',
      };
    case 'UNSUPPORTED_CONVERSION':
      return {
        title: 'This conversion is not available',
        what: 'The service has no engine for this pair of formats.',
        todo: 'Pick one of the target formats offered for this file.',
      };
    case 'INTAKE_FAILED':
      return status === 413
        ? {
            title: 'File too large',
            what: `Uploads are limited to ${UPLOAD_LIMIT}.`,
            todo: 'Make the file smaller (or split it) and try again.',
          }
        : {
            title: 'The upload did not arrive',
            what: `The file could not be received: it may be empty, or the upload was cut off. The limit is ${UPLOAD_LIMIT}.`,
            todo: 'Check the file and upload it again.',
          };
    case 'SOURCE_URL_BLOCKED':
      return {
        title: 'That address is not allowed',
        what: 'The URL points to a private, local or internal network address, which the service never fetches.',
        todo: 'Use a public http(s) address, or download the file and drop it here.',
      };
    case 'INVALID_SOURCE_URL':
      return {
        title: 'That is not a usable URL',
        what: 'The address is empty or is not a public http:// or https:// URL.',
        todo: 'Paste the full address of the file, starting with https://.',
      };
    case 'SOURCE_URL_FETCH_FAILED':
      return {
        title: 'The file could not be downloaded',
        what: 'The address did not answer, took too long, was too large or is not publicly reachable.',
        todo: 'Check that the link opens in a private browser window, or download the file and drop it here.',
      };
    case 'CONVERT_API_UNAVAILABLE':
      return {
        title: 'The service is busy',
        what: 'The conversion queue is full or the service is restarting.',
        todo: 'Try again in a minute.',
      };
    case 'NEEDS_OCR':
      return {
        title: 'This document has no text layer',
        what: 'It looks like a scan: the pages are pictures, so there is no text to extract.',
        todo: 'Text recognition (OCR) can read the text from the page images: use the button below, or send the option "ocr": true.',
      };
    case 'ENCRYPTED_DOCUMENT':
      return {
        title: 'This document is password-protected',
        what: 'It cannot be opened without its password, or the password given was not the right one.',
        todo: 'Enter its password in the Password field among the options (for a PDF, the Unlock tool) and convert again.',
      };
    case 'MALFORMED_DOCUMENT':
      return {
        title: 'This file is damaged or not what it claims to be',
        what: 'The engines could not read it.',
        todo: 'Open it in its own program to check it, save a fresh copy, and try again.',
      };
    case 'OUTPUT_TOO_LARGE':
      return {
        title: 'The result would be too large',
        what: 'This file expands into more data (pages, frames or bytes) than this server keeps for one conversion.',
        todo: 'Convert a smaller part of it (fewer pages, a shorter clip), or pick a more compact target format.',
      };
    case 'INPUT_TOO_LARGE':
      return {
        title: 'This file is too large to read',
        what: 'It claims more than this server reads: an image of too many pixels, pages too large, or data nested too deeply.',
        todo: 'Send a smaller image, fewer or smaller pages, or flatter data.',
      };
    case 'CONVERT_FAILED':
      return {
        title: 'The conversion failed',
        what: 'The engines tried and could not convert this file. It does not count against your quota.',
        todo: 'Check the file, or try another target format.',
      };
    case 'INVALID_API_KEY':
      return {
        title: 'Your API key was refused',
        what: 'The key is unknown or has been revoked.',
        todo: 'Check the key under “API key”, or clear it to continue without one.',
      };
    case 'ARTIFACT_EXPIRED':
      return {
        title: 'This result has expired',
        what: 'Results are kept for 24 hours and then deleted.',
        todo: 'Convert the file again.',
      };
    case 'REQUEST_NOT_FOUND':
      return {
        title: 'Conversion not found',
        what: 'The service does not know this conversion.',
        todo: 'Start a new conversion.',
      };
    case 'NETWORK_ERROR':
      return {
        title: 'No connection',
        what: 'The service could not be reached.',
        todo: 'Check your connection and try again.',
      };
    default:
      return {
        title: 'Something went wrong',
        what: error.message || `The service answered with ${error.code}.`,
        todo: 'Try again; if it keeps happening, try another file or format.',
      };
  }
}
