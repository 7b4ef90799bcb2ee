import { recipeSuite } from './recipe-suite.js';

recipeSuite('postgres-s3');
