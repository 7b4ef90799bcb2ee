export type { FileCounts } from '../engine/checks.js';
export { describeChecks } from '../engine/checks.js';
export { type ArtifactChecks, artifactChecks } from './checks.js';
export {
  type FidelityInput,
  type FidelityMeasure,
  type FidelityReport,
  FLOORS,
  judgeFidelity,
  type MeasureName,
} from './measure.js';
export { formatFidelityTable } from './table.js';
export type { RunTool } from './tools.js';
