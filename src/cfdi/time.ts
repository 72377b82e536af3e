import { catalogEntry } from '../catalogs/index.ts';

/** c_CodigoPostal's time-zone description → IANA zone (tzdata knows each one's current offsets and DST). */
const ZONES: Record<string, string> = {
  'Tiempo del Centro': 'America/Mexico_City',
  'Tiempo del Centro en Frontera': 'America/Matamoros',
  'Tiempo del Pacífico': 'America/Mazatlan',
  'Tiempo del Pacífico en Frontera': 'America/Ciudad_Juarez',
  'Tiempo del Pacífico Sonora': 'America/Hermosillo',
  'Tiempo del Noroeste en Frontera': 'America/Tijuana',
  'Tiempo del Sureste': 'America/Cancun',
};

export const timeZoneOf = (codigoPostal: string): string => ZONES[catalogEntry('c_CodigoPostal', codigoPostal)?.huso_horario ?? ''] ?? 'America/Mexico_City';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DDThh:mm:ss` wall-clock time at a postal code (SAT t_FechaH: no zone, no fraction). */
export function localDateTime(instant: Date, codigoPostal: string): string {
  return wallClock(instant, timeZoneOf(codigoPostal));
}

/**
 * A zone's offset by quarter hour of UTC: tzdata's changes of offset fall on quarter hours, so Intl is asked once per
 * zone and quarter hour instead of on every call (an invoice asks four times; formatToParts is most of its cost).
 */
const QUARTER_HOUR_MS = 15 * 60_000;
const offsets = new Map<string, number>();

export function wallClock(instant: Date, timeZone: string): string {
  const second = Math.floor(instant.getTime() / 1000) * 1000;
  const key = `${timeZone} ${Math.floor(second / QUARTER_HOUR_MS)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = Date.parse(`${formatted(instant, timeZone)}Z`) - second;
    if (offsets.size >= 4096) offsets.clear();
    offsets.set(key, offset);
  }
  return new Date(second + offset).toISOString().slice(0, 19);
}

function formatted(instant: Date, timeZone: string): string {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(instant).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
}

/** The instant at which the wall clock in `timeZone` reads `local` (YYYY-MM-DDThh:mm:ss). */
export function zonedToUtc(local: string, timeZone: string): Date {
  const asUtc = Date.parse(`${local}Z`);
  // Offset of the zone around that moment; a second pass settles DST edges.
  let guess = asUtc;
  for (let i = 0; i < 2; i++) guess = asUtc - (Date.parse(`${wallClock(new Date(guess), timeZone)}Z`) - guess);
  return new Date(guess);
}
