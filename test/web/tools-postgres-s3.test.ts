import { webToolsSuite } from './tools-suite.js';

await webToolsSuite('postgres-s3');
