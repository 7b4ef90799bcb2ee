import type { ConversionEdge } from '../engine/contract.js';
import type { FormatId } from '../formats/index.js';

/** One step of a planned conversion: an edge and the engine that runs it, with fallbacks. */
export interface PlannedStep {
  from: FormatId;
  to: FormatId;
  /** Engines able to do this step, best first; later ones are fallbacks. */
  engines: string[];
  /** The best engine's edge. */
  edge: ConversionEdge;
  /** Each engine's edge, in the order of `engines`. */
  edges: ConversionEdge[];
  /** The options some engine of this step honours (see Converter.options), sorted. */
  options: readonly string[];
}

/** A path through the conversion graph. */
export interface Plan {
  key: string; // `${from}-${to}`
  from: FormatId;
  to: FormatId;
  family: ConversionEdge['family'];
  lossy: boolean;
  cost: number;
  steps: PlannedStep[];
  /** The options some step of this plan honours, sorted: the catalog lists them per key. */
  options: readonly string[];
}
