import { webPageSuite } from './page-suite.js';

webPageSuite('sqlite-disk');
