import { webToolsSuite } from './tools-suite.js';

await webToolsSuite('sqlite-disk');
