import { api, type CatalogEntry, type Conversion } from './api.js';

/** The conversions the server offers, with the lossy marks from its build manifest. */
export class Catalog {
  private constructor(
    readonly conversions: Conversion[],
    private readonly keys: Record<string, CatalogEntry>,
  ) {}

  static async load(): Promise<Catalog> {
    const [conversions, manifest] = await Promise.all([api.conversions(), api.catalog()]);
    return new Catalog(conversions.conversions ?? [], manifest.keys ?? {});
  }

  static empty(): Catalog {
    return new Catalog([], {});
  }

  sources(): string[] {
    return [...new Set(this.conversions.map((c) => c.from))].sort();
  }

  targets(): string[] {
    return [...new Set(this.conversions.map((c) => c.to))].sort();
  }

  /** Conversions from one source format, grouped by family, families and targets sorted by name. */
  byFamily(source: string): Map<string, Conversion[]> {
    const groups = new Map<string, Conversion[]>();
    const matching = this.conversions
      .filter((c) => c.from === source)
      .sort((a, b) => a.family.localeCompare(b.family) || a.to.localeCompare(b.to));
    for (const conversion of matching) {
      const group = groups.get(conversion.family) ?? [];
      group.push(conversion);
      groups.set(conversion.family, group);
    }
    return groups;
  }

  isLossy(key: string): boolean {
    return this.keys[key]?.lossy === true;
  }
}
