const UNITS = ['bytes', 'KB', 'MB', 'GB'];

export function formatBytes(size: number | undefined): string {
  if (size === undefined || !Number.isFinite(size)) return 'size unknown';
  if (size < 1024) return `${size} ${size === 1 ? 'byte' : 'bytes'}`;
  let value = size;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${UNITS[unit]}`;
}

/** A timestamp from the API (ISO 8601, UTC) shown in the visitor's own time zone. */
export function formatLocalTime(iso: string | undefined): string {
  if (!iso) return 'unknown time';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
}

export function formatClock(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function formatPercent(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '';
  return `${Math.round(Math.max(0, Math.min(100, value)))}%`;
}
