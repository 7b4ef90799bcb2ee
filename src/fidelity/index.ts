export { type ArtifactChecks, artifactChecks } from './checks.js';
export type { FileCounts } from './describe.js';
export { describeChecks } from './describe.js';
export {
  type FidelityInput,
  type FidelityMeasure,
  type FidelityReport,
  FLOORS,
  type MeasureName,
  measureFidelity,
} from './measure.js';
export { formatFidelityTable } from './table.js';
