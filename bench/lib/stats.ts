/** The middle value of a bench's rounds (the upper one of an even count), as every bench reports. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
