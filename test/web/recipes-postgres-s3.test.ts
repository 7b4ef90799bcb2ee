import { webRecipesSuite } from './recipes-suite.js';

webRecipesSuite('postgres-s3');
