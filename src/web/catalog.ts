import { api, type CatalogEntry, type Conversion, type OptionSchema } from './api.js';

/**
 * The conversions the server offers, with the lossy marks and declared options from its build
 * manifest, and each option's JSON Schema from its OpenAPI document.
 */
export class Catalog {
  private constructor(
    readonly conversions: Conversion[],
    private readonly keys: Record<string, CatalogEntry>,
    private readonly schemas: Record<string, OptionSchema>,
  ) {}

  static async load(): Promise<Catalog> {
    const [conversions, manifest, schemas] = await Promise.all([
      api.conversions(),
      api.catalog(),
      // Without the schemas every option is still offered, as a plain text field.
      api.optionSchemas().catch(() => ({})),
    ]);
    return new Catalog(conversions.conversions ?? [], manifest.keys ?? {}, schemas);
  }

  static empty(): Catalog {
    return new Catalog([], {}, {});
  }

  sources(): string[] {
    return [...new Set(this.conversions.map((c) => c.from))].sort();
  }

  targets(): string[] {
    return [...new Set(this.conversions.map((c) => c.to))].sort();
  }

  /** The targets a source format can become. */
  targetsOf(source: string): string[] {
    return this.conversions.filter((c) => c.from === source).map((c) => c.to);
  }

  has(key: string): boolean {
    return this.conversions.some((c) => c.key === key);
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

  /** The options the server declares for a conversion key. */
  optionsOf(key: string): string[] {
    return this.keys[key]?.options ?? [];
  }

  schemaOf(option: string): OptionSchema {
    return this.schemas[option] ?? {};
  }
}
