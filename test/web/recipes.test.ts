import { webRecipesSuite } from './recipes-suite.js';

webRecipesSuite('sqlite-disk');
