import { webPageSuite } from './page-suite.js';

webPageSuite('postgres-s3');
