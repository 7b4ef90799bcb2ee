export type { FileCounts } from './counts.js';
export {
  type FidelityInput,
  type FidelityMeasure,
  type FidelityReport,
  FLOORS,
  type MeasureName,
  measureFidelity,
} from './measure.js';
